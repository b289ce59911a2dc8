import type { Row } from '../../db/schema.ts';
import { absentParam, compact, type FhirResource, reference, stringParam } from '../../http/fhir.ts';

/**
 * A place the calendar's in-person appointments are at (`places`, kept by the encounters' writes)
 * as a FHIR R4 Location, profiled as US Core 6.1.0 Location: its name the text the appointment
 * gave, managed by the instance's Organization. Read with CALENDAR_READ, as the appointments that
 * name it. Each field's mapping is in docs/fhir.md.
 */

type PlaceRow = Row<'places'>;

export const fhirLocation: FhirResource = {
  type: 'Location',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-location',
  permission: 'CALENDAR_READ',
  table: 'places',
  instanceScoped: true,
  patient: { none: 'a place appointments are at, named by its text: no patient is linked to it' },
  logAs: 'LOCATION',
  notFound: 'LOCATION_NOT_FOUND',
  params: {
    // The start of the text, any case (places_name_pattern_idx).
    name: stringParam('name', 'name'),
    // Cairn keeps the text alone, no address: an address search matches no place.
    address: absentParam('address', 'string'),
    'address-city': absentParam('address-city', 'string'),
    'address-state': absentParam('address-state', 'string'),
    'address-postalcode': absentParam('address-postalcode', 'string'),
  },
  toFhir: (row: PlaceRow) =>
    compact({
      resourceType: 'Location',
      id: row.id,
      meta: { lastUpdated: new Date(row.updated_at).toISOString() },
      status: 'active',
      name: row.name,
      mode: 'instance',
      managingOrganization: reference('Organization', row.instance_id),
    }),
};
