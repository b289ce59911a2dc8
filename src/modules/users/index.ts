/** What other parts may use of users: the CLI creates users and sets passwords. */
export { saveUser, setPassword } from './operations.ts';
