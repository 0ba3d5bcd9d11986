// The media type of an image file from its name, for the adapters that read an image given by path
// (each keeps its own fallback for a name it does not know).
import { extname } from 'node:path';

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** 'image/png' for "shot.PNG"; undefined for a name that is not a known image type. */
export function imageTypeOfPath(path: string): string | undefined {
  return IMAGE_TYPES[extname(path).toLowerCase()];
}
