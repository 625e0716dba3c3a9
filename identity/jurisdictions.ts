// Jurisdictions are ISO 3166-1 alpha-2 codes: the officially assigned ones (249), uppercase.
// Their English names come from ICU (Intl.DisplayNames, full ICU in Node 20), not from a table here.
const assigned = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);

/** The code of `value` (any case) when it is an assigned ISO 3166-1 alpha-2 code, else null. */
export function jurisdictionCode(value: string): string | null {
  const code = value.trim().toUpperCase();
  return assigned.has(code) ? code : null;
}

const displayNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** Every assigned code with its English name, sorted by name (the sandbox form's list). */
export function jurisdictionChoices(): { code: string; name: string }[] {
  return [...assigned].map((code) => ({ code, name: displayNames.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

export function jurisdictionName(code: string): string {
  return displayNames.of(code) ?? code;
}
