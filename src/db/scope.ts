/** Where instance data lives: every instance-scoped query filters on both (tenant first, for distribution). */
export interface Scope {
  tenantId: string;
  instanceId: string;
}

/** One patient's data in an instance. */
export interface PatientScope extends Scope {
  patientId: string;
}
