/** What other areas may use of the files area: the wire shape of a file entry. */
export { FileEntry, fileBytes, LinkedFileEntry } from './schemas.ts';
