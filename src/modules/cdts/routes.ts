import type { AreaPlugin } from '../../http/plugin.ts';

/** Routes of this area: not built yet. */
const routes: AreaPlugin = async () => {};

export default routes;
