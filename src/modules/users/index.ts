/** What other parts may use of users: the CLI creates users and sets passwords; encounters show a host. */
export { saveUser, setPassword } from './operations.ts';
export { User } from './schemas.ts';
export { readUsers, type UserReadRow, userRelations } from './store.ts';
export { userViews } from './views.ts';
