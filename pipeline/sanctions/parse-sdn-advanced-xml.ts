// Digital-currency addresses from OFAC's authoritative sdn_advanced.xml. Each address is a
// DistinctParty/Profile/Feature whose FeatureTypeID names, through
// ReferenceValueSets/FeatureTypeValues/FeatureType, a type labelled `Digital Currency Address -
// <LABEL>`; the address is the text of FeatureVersion/VersionDetail; the Profile ID is the SDN uid.
// The designation date is the Date of the SanctionsEntry/EntryEvent whose type is "Created".
// Type ids differ between publications, so both are resolved by label from the document itself.
//
// Names, for name screening, in the same pass: each DistinctParty/Profile/Identity/Alias/
// DocumentedName, its NamePartValues joined by spaces. The alias whose Primary is "true" is the
// primary name; the others are aka, fka or nka by their AliasType label. Aliases marked
// LowQuality ("weak" akas, which the legacy files keep in the remarks only) are left out, as
// alt.csv leaves them out. A name whose Identity/NamePartGroups give some parts the "Last Name"
// type is written as sdn.csv writes it, "SURNAME, Given". The entry's type (individual, entity,
// vessel, aircraft) comes from the Profile's PartySubType, or its PartyType when the sub type is
// "Unknown"; '' when the document does not define them. Dates of birth are the Profile's
// "Birthdate" features: each DatePeriod's years, from its earliest to its latest, widened when its
// Start or End is Approximate (pipeline/sanctions/birth-years.ts).
//
// Streaming: text goes through `write` in chunks. It relies on the schema's element order
// (ReferenceValueSets before DistinctParties, SanctionsEntries after them), which the XSD's
// sequence fixes; a document in another order is refused rather than misread.
import { createXmlScanner } from './xml-scanner.ts';
import { digitalCurrencyAddressPrefix, type ListedAddress } from './listing.ts';
import type { ListedBirth, ListedName, SdnNameType, SdnType } from './listed-name.ts';
import { yearsOf } from './birth-years.ts';

const createdEventLabel = 'Created';
const aliasTypeLabels: Record<string, SdnNameType> = { 'A.K.A.': 'aka', 'F.K.A.': 'fka', 'N.K.A.': 'nka', Name: 'aka' };
const lastNameLabel = 'Last Name';
const birthdateLabel = 'Birthdate';
// Reference values resolved by label: element name -> (ID -> label).
const referenceSets = ['FeatureType', 'EntryEventType', 'AliasType', 'PartySubType', 'PartyType', 'NamePartType'] as const;
type ReferenceSet = (typeof referenceSets)[number];

export interface SdnAdvancedParse {
  addresses: ListedAddress[];
  names: ListedName[];
  births: ListedBirth[];
  /** DistinctParty elements in the document. */
  partyCount: number;
  /** Oddities that did not stop the parse, e.g. an address feature without a value. */
  warnings: string[];
  /** The same about names, e.g. an alias type of no known kind. */
  nameWarnings: string[];
}

export interface SdnAdvancedParser {
  write(chunk: string): void;
  end(): SdnAdvancedParse;
}

export function parseSdnAdvancedXml(text: string): SdnAdvancedParse {
  const parser = createSdnAdvancedParser();
  parser.write(text);
  return parser.end();
}

export function createSdnAdvancedParser(): SdnAdvancedParser {
  const path: string[] = [];
  const references = Object.fromEntries(referenceSets.map((set) => [set, new Map<string, string>()])) as Record<ReferenceSet, Map<string, string>>;
  const featureTypes = references.FeatureType;
  const eventTypes = references.EntryEventType;
  const partyTypeOfSubType = new Map<string, string>();
  const names: ListedName[] = [];
  const nameWarnings: string[] = [];
  const births: ListedBirth[] = [];
  // Profiles with a date of birth that could not be read: none of their dates is used.
  const unreadBirths = new Set<string>();
  const designatedOn = new Map<string, string>();
  const found: { sdnUid: string; label: string; address: string }[] = [];
  const warnings: string[] = [];
  let referenceSetsRead = false;
  let partyCount = 0;

  // Text of the element being captured (a reference label, a VersionDetail, a date part).
  let captured: string | null = null;
  let referenceId = '';
  let profileId: string | null = null;
  let profileType: SdnType = '';
  // The names of the Identity being read, formatted when it closes (its NamePartGroups come last).
  let identity: { names: { nameType: SdnNameType; parts: { group: string; value: string }[] }[]; partTypes: Map<string, string> } | null = null;
  let aliasType: SdnNameType | null = null;
  let documentedName: { group: string; value: string }[] | null = null;
  let namePartGroup = '';
  let feature: { label: string; values: string[] } | null = null;
  let birth: { years: string[]; approximate: boolean } | null = null;
  let entryProfileId: string | null = null;
  let event: { typeId: string; parts: Record<string, string> } | null = null;

  const required = (attributes: Record<string, string>, name: string, element: string): string => {
    const value = attributes[name];
    if (value === undefined || value === '') throw new Error(`sdn_advanced.xml: <${element}> without ${name}`);
    return value;
  };

  const scanner = createXmlScanner({
    open(name, attributes) {
      const parent = path[path.length - 1];
      const grandparent = path[path.length - 2];
      if (captured !== null) throw new Error(`sdn_advanced.xml: <${name}> inside <${parent}>, which should hold only text`);
      path.push(name);
      if ((referenceSets as readonly string[]).includes(name) && parent === `${name}Values`) {
        referenceId = required(attributes, 'ID', name);
        if (name === 'PartySubType' && attributes.PartyTypeID !== undefined) partyTypeOfSubType.set(referenceId, attributes.PartyTypeID);
        captured = '';
      } else if (name === 'DistinctParties' && !referenceSetsRead) {
        throw new Error('sdn_advanced.xml: DistinctParties before ReferenceValueSets, cannot resolve feature types');
      } else if (name === 'DistinctParty') {
        partyCount++;
      } else if (name === 'Profile' && parent === 'DistinctParty') {
        profileId = required(attributes, 'ID', name);
        profileType = sdnTypeOf(attributes.PartySubTypeID);
      } else if (name === 'Identity' && parent === 'Profile') {
        identity = { names: [], partTypes: new Map() };
      } else if (name === 'Alias' && parent === 'Identity' && identity) {
        aliasType = attributes.LowQuality === 'true' ? null : nameTypeOf(attributes);
      } else if (name === 'DocumentedName' && parent === 'Alias' && aliasType !== null) {
        documentedName = [];
      } else if (name === 'NamePartValue' && parent === 'DocumentedNamePart' && documentedName) {
        namePartGroup = attributes.NamePartGroupID ?? '';
        captured = '';
      } else if (name === 'NamePartGroup' && parent === 'MasterNamePartGroup' && identity) {
        identity.partTypes.set(required(attributes, 'ID', name), attributes.NamePartTypeID ?? '');
      } else if (name === 'Feature' && attributes.FeatureTypeID !== undefined) {
        feature = openFeature(attributes.FeatureTypeID, parent);
        if (featureTypes.get(attributes.FeatureTypeID) === birthdateLabel && parent === 'Profile' && profileId !== null) birth = { years: [], approximate: false };
      } else if ((name === 'Start' || name === 'End') && parent === 'DatePeriod' && birth) {
        if (attributes.Approximate === 'true') birth.approximate = true;
      } else if (name === 'Year' && (parent === 'From' || parent === 'To') && birth) {
        captured = '';
      } else if (name === 'VersionDetail' && parent === 'FeatureVersion' && feature) {
        captured = '';
      } else if (name === 'SanctionsEntry') {
        entryProfileId = required(attributes, 'ProfileID', name);
      } else if (name === 'EntryEvent' && parent === 'SanctionsEntry') {
        event = { typeId: required(attributes, 'EntryEventTypeID', name), parts: {} };
      } else if ((name === 'Year' || name === 'Month' || name === 'Day') && parent === 'Date' && grandparent === 'EntryEvent' && event) {
        captured = '';
      }
    },
    text(text) {
      if (captured !== null) captured += text;
    },
    close(name) {
      path.pop();
      if (captured !== null) {
        // A capturing element holds only text (checked in open), so this closes it.
        const value = captured.trim();
        captured = null;
        if ((referenceSets as readonly string[]).includes(name)) references[name as ReferenceSet].set(referenceId, value);
        else if (name === 'NamePartValue' && value !== '') documentedName!.push({ group: namePartGroup, value });
        else if (name === 'VersionDetail' && value !== '') feature!.values.push(value);
        else if (name === 'Year' && birth) birth.years.push(value);
        else if (name === 'Year' || name === 'Month' || name === 'Day') event!.parts[name] = value;
      } else if (name === 'ReferenceValueSets') referenceSetsRead = true;
      else if (name === 'Feature' && feature) closeFeature(feature);
      else if (name === 'Feature' && birth) closeBirth(birth);
      else if (name === 'DocumentedName' && documentedName) closeDocumentedName(documentedName);
      else if (name === 'Alias') aliasType = null;
      else if (name === 'Identity' && identity) closeIdentity(identity);
      else if (name === 'Profile') profileId = null;
      else if (name === 'EntryEvent' && event) closeEvent(event);
      else if (name === 'SanctionsEntry') entryProfileId = null;
    },
  });

  function sdnTypeOf(subTypeId: string | undefined): SdnType {
    const subType = subTypeId === undefined ? undefined : references.PartySubType.get(subTypeId)?.toLowerCase();
    if (subType === 'vessel' || subType === 'aircraft') return subType;
    const partyType = references.PartyType.get(partyTypeOfSubType.get(subTypeId ?? '') ?? '')?.toLowerCase();
    return partyType === 'individual' || partyType === 'entity' ? partyType : '';
  }

  function nameTypeOf(attributes: Record<string, string>): SdnNameType {
    const typeId = required(attributes, 'AliasTypeID', 'Alias');
    const label = references.AliasType.get(typeId);
    if (label === undefined) throw new Error(`sdn_advanced.xml: Alias with AliasTypeID ${typeId}, which AliasTypeValues does not define`);
    if (attributes.Primary === 'true') return 'primary';
    const nameType = aliasTypeLabels[label];
    if (nameType !== undefined) return nameType;
    nameWarnings.push(`profile ${profileId}: alias type "${label}" is none of A.K.A., F.K.A., N.K.A.; loaded as an aka`);
    return 'aka';
  }

  function closeDocumentedName(parts: { group: string; value: string }[]): void {
    if (parts.length > 0) identity!.names.push({ nameType: aliasType!, parts });
    documentedName = null;
  }

  function closeIdentity(open: NonNullable<typeof identity>): void {
    const isLastName = (group: string) => references.NamePartType.get(open.partTypes.get(group) ?? '') === lastNameLabel;
    for (const { nameType, parts } of open.names) {
      const surname = parts.filter((p) => isLastName(p.group)).map((p) => p.value);
      const given = parts.filter((p) => !isLastName(p.group)).map((p) => p.value);
      const name = surname.length > 0 && given.length > 0 ? `${surname.join(' ')}, ${given.join(' ')}` : [...surname, ...given].join(' ');
      names.push({ sdnUid: profileId!, name, nameType, sdnType: profileType });
    }
    identity = null;
  }

  function openFeature(typeId: string, parent: string | undefined): { label: string; values: string[] } | null {
    const typeLabel = featureTypes.get(typeId);
    if (typeLabel === undefined) throw new Error(`sdn_advanced.xml: Feature with FeatureTypeID ${typeId}, which FeatureTypeValues does not define`);
    if (!typeLabel.startsWith(digitalCurrencyAddressPrefix)) return null;
    if (parent !== 'Profile' || profileId === null) {
      throw new Error(`sdn_advanced.xml: a "${typeLabel}" feature outside DistinctParty/Profile`);
    }
    return { label: typeLabel.slice(digitalCurrencyAddressPrefix.length).trim(), values: [] };
  }

  function closeFeature(open: { label: string; values: string[] }): void {
    if (open.values.length === 0) warnings.push(`profile ${profileId}: a ${open.label} address feature without a value`);
    for (const address of open.values) found.push({ sdnUid: profileId!, label: open.label, address });
    feature = null;
  }

  function closeBirth(open: { years: string[]; approximate: boolean }): void {
    birth = null;
    const years = open.years.map((y) => (/^\d{4}$/.test(y) ? Number(y) : NaN));
    const read = years.length === 0 ? null : yearsOf(Math.min(...years), Math.max(...years), open.approximate);
    if (read) births.push({ sdnUid: profileId!, ...read });
    else {
      unreadBirths.add(profileId!);
      nameWarnings.push(`profile ${profileId}: a date of birth with years ${JSON.stringify(open.years)} is not read; none of its dates of birth is used`);
    }
  }

  function closeEvent(open: { typeId: string; parts: Record<string, string> }): void {
    event = null;
    const typeLabel = eventTypes.get(open.typeId);
    if (typeLabel === undefined) throw new Error(`sdn_advanced.xml: EntryEvent with EntryEventTypeID ${open.typeId}, which EntryEventTypeValues does not define`);
    if (typeLabel !== createdEventLabel) return;
    const date = isoDate(open.parts);
    if (date === null) {
      warnings.push(`profile ${entryProfileId}: designation date ${JSON.stringify(open.parts)} is not a full date`);
      return;
    }
    const earlier = designatedOn.get(entryProfileId!);
    if (earlier === undefined || date < earlier) designatedOn.set(entryProfileId!, date);
  }

  return {
    write: (chunk) => scanner.write(chunk),
    end() {
      scanner.end();
      if (![...featureTypes.values()].some((label) => label.startsWith(digitalCurrencyAddressPrefix))) {
        throw new Error(`sdn_advanced.xml: no "${digitalCurrencyAddressPrefix}…" feature type: not an sdn_advanced.xml, or its format changed`);
      }
      if (![...eventTypes.values()].includes(createdEventLabel)) {
        throw new Error(`sdn_advanced.xml: no "${createdEventLabel}" entry event type: cannot tell designation dates`);
      }
      if (names.length > 0 && references.PartySubType.size === 0) {
        nameWarnings.push('no PartySubTypeValues: whether an entry is an individual, an entity, a vessel or an aircraft is unknown, so every name is screened');
      }
      const addresses = found.map((a) => ({ ...a, listedAt: designatedOn.get(a.sdnUid) ?? null }));
      return { addresses, names, births: births.filter((b) => !unreadBirths.has(b.sdnUid)), partyCount, warnings, nameWarnings };
    },
  };
}

/** YYYY-MM-DD from Year/Month/Day parts, or null when one is missing or the date does not exist. */
function isoDate(parts: Record<string, string>): string | null {
  const [year, month, day] = [parts.Year, parts.Month, parts.Day].map((p) => (p !== undefined && /^\d+$/.test(p) ? Number(p) : NaN));
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}
