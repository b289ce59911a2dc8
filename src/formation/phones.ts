import type { Formation, PhoneCapability } from './schemas.ts';

/** One of the formation's `instancePhones`. */
export type InstancePhoneDefinition = NonNullable<Formation['instancePhones']>[number];

/** Whether a phone sends on a channel: one without `capabilities` sends on every channel (formations written before them). */
export function phoneCan(phone: InstancePhoneDefinition, capability: PhoneCapability): boolean {
  return phone.capabilities === undefined || phone.capabilities.includes(capability);
}

/** The instance's phones that send on a channel, in the formation's order. */
export function phonesFor(formation: Formation, capability: PhoneCapability): InstancePhoneDefinition[] {
  return (formation.instancePhones ?? []).filter((phone) => phoneCan(phone, capability));
}
