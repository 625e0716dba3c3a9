// How many recorded decisions `reputation assessments` lists at most: the CLI's option and the
// admin operation's check. In a module of its own so that the CLI starts without loading the
// store's native module (./assessments.ts reads the store).
export const maxListedAssessments = 500;
