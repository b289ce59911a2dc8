/**
 * What an upload to an owner of files may hold (each area declares its own, with its owner
 * kind): the extensions (000 "Limits"), and the sizes Cairn chose where 000 is silent
 * (docs/decisions.md "Files"). The content must be of the type its extension names, judged by its
 * first bytes.
 */
export interface FileRules {
  extensions: readonly string[];
  maxFileBytes: number;
  maxFiles: number;
  maxTotalBytes: number;
}

/** The media type each accepted extension must hold, by its magic bytes (`file-type`). */
export const contentTypes: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
};

/** A megabyte, for the sizes areas declare. */
export const MB = 1024 * 1024;

export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
}
