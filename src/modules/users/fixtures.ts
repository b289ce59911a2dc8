import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** A user with a role and territories in the instance. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, marker, paths, formation } = f;
    const region = formation.territories![0]!;
    const username = `${marker}-user`;
    const email = `${marker}@example.org`;
    const user = await f.call('POST', `${paths.admin}/users`, `${t.admin}/users`, {
      username,
      email,
      firstName: `First ${marker}`,
      lastName: `Last ${marker}`,
      roles: [{ permissionName: 'admin', instanceName: t.instance.name, primaryRole: true }],
    });
    await f.call('PUT', `${paths.admin}/user-territories/{userId}`, `${t.admin}/user-territories/${user.id}`, {
      userId: user.id,
      territories: [{ name: region.name, territories: [region.territories[0]], instanceName: t.instance.name }],
    });
    await f.call('PUT', `${paths.admin}/users/{userName}/password`, `${t.admin}/users/${username}/password`, {
      password: `a long enough password ${marker}`,
    });
    f.ids.user = user.id;
    f.names.username = username;
    f.alternateKeys.push(username, email);
  },
  params: {
    userName: (f) => f.names.username,
    userId: (f) => f.ids.user,
  },
};
