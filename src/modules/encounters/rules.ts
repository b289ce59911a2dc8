import type { Formation } from '../../formation/schemas.ts';
import { ApiError, type FieldError } from '../../wire/errors.ts';
import type { EncounterStatus } from './types.ts';

/** The business rules of encounters: status moves, visit service prices, and where a visit happens. */

/** DRAFT → OPEN → ACTIVE → FINALIZED, and any status not final → CANCELLED. */
const moves: Record<EncounterStatus, readonly EncounterStatus[]> = {
  DRAFT: ['OPEN', 'CANCELLED'],
  OPEN: ['ACTIVE', 'CANCELLED'],
  ACTIVE: ['FINALIZED', 'CANCELLED'],
  FINALIZED: [],
  CANCELLED: [],
};

/** Statuses an encounter may be created in: FINALIZED and CANCELLED are reached by moves only. */
export const initialStatuses: readonly EncounterStatus[] = ['DRAFT', 'OPEN', 'ACTIVE'];

/** 400 INVALID_STATUS_TRANSITION naming the move, unless it is allowed (staying put always is). */
export function checkMove(from: EncounterStatus, to: EncounterStatus): void {
  if (from === to || moves[from].includes(to)) return;
  const allowed = moves[from];
  throw new ApiError(
    'INVALID_STATUS_TRANSITION',
    { from, to, allowed },
    `An encounter cannot move from ${from} to ${to}` +
      (allowed.length > 0 ? ` (from ${from}: ${allowed.join(', ')})` : ` (${from} is final)`),
  );
}

export interface VisitServiceInput {
  name: string;
  quantity?: number | undefined;
  modifiers?: string[] | undefined;
}

export interface PricedService {
  name: string;
  quantity: number;
  serviceCost: number;
  cancellationFee: number;
  preVisitCost: number;
  modifiers: string[];
}

/**
 * Visit services priced from the formation, in integer cents: a name the formation lacks, or a
 * modifier its service does not list, is a 400. Amounts a client sends are ignored; the
 * formation's prices are the truth.
 */
export function priceServices(formation: Formation, services: VisitServiceInput[], errors: FieldError[]): PricedService[] {
  const byName = new Map((formation.visitServices ?? []).map((service) => [service.name, service]));
  return services.flatMap((service, index) => {
    const definition = byName.get(service.name);
    if (!definition) {
      errors.push({ path: `body.visitServices.${index}.name`, message: `no visit service "${service.name}" in the formation` });
      return [];
    }
    const allowed = new Set(definition.modifiers ?? []);
    const modifiers = service.modifiers ?? [];
    for (const [at, modifier] of modifiers.entries()) {
      if (!allowed.has(modifier))
        errors.push({
          path: `body.visitServices.${index}.modifiers.${at}`,
          message: `"${modifier}" is not a modifier of visit service "${service.name}"`,
        });
    }
    return [
      {
        name: definition.name,
        quantity: service.quantity ?? 1,
        serviceCost: definition.serviceCost ?? 0,
        cancellationFee: definition.cancellationFee ?? 0,
        preVisitCost: definition.preVisitCost ?? 0,
        modifiers,
      },
    ];
  });
}

/** The encounter's totals: each service's amount times its quantity. */
export function totals(services: PricedService[]): { serviceCost: number; preVisitCost: number } {
  return {
    serviceCost: services.reduce((sum, service) => sum + service.serviceCost * service.quantity, 0),
    preVisitCost: services.reduce((sum, service) => sum + service.preVisitCost * service.quantity, 0),
  };
}

/**
 * 002's location rule, by the appointment's `eventMode`: IN-PERSON (or none) keeps the text given;
 * CALL needs the patient's primary phone, which becomes the location (the call is placed from the
 * communication center); VIDEO needs a complete https address. Answers the location to store.
 */
export function locationFor(
  eventMode: string | null | undefined,
  location: string | null | undefined,
  patientPhone: string | null,
  errors: FieldError[],
): string | null {
  const mode = eventMode?.toUpperCase();
  if (mode === 'CALL') {
    if (!patientPhone) errors.push({ path: 'body.location', message: "a CALL encounter needs the patient's primary phone" });
    return patientPhone;
  }
  if (mode === 'VIDEO') {
    if (!isCompleteHttpsUrl(location))
      errors.push({ path: 'body.location', message: 'a VIDEO encounter needs a complete https address (https://host/...)' });
    return location ?? null;
  }
  return location ?? null;
}

function isCompleteHttpsUrl(value: string | null | undefined): boolean {
  if (!value) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.includes('.') && !url.username && !url.password;
  } catch {
    return false;
  }
}
