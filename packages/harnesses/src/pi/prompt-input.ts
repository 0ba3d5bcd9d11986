// A turn's input as Pi's prompt and steer commands take it (pure but for reading image files): the
// text with file references appended, and the images inline.
import { readFile } from 'node:fs/promises';
import { ReinsError, type TurnInput } from '@reins/core';
import { imageTypeOfPath } from '../runtime/image-types.js';
import type { PiImageContent } from './wire.js';

/** The turn's images as Pi takes them (inline base64), read from disk where given by path. */
export async function imageContent(input: TurnInput): Promise<PiImageContent[] | undefined> {
  if (!input.images || input.images.length === 0) return undefined;
  return Promise.all(
    input.images.map(async (image): Promise<PiImageContent> => {
      if (image.source === 'data' && image.data) {
        return { type: 'image', data: image.data, mimeType: image.mediaType ?? 'image/png' };
      }
      if (image.source === 'path' && image.path) {
        const data = await readFile(image.path).catch((cause: unknown) => {
          throw new ReinsError('invalid_input', `Could not read the image ${image.path}.`, { harness: 'pi', cause });
        });
        return {
          type: 'image',
          data: data.toString('base64'),
          mimeType: image.mediaType ?? imageTypeOfPath(image.path) ?? 'image/png',
        };
      }
      throw new ReinsError('invalid_input', 'An image needs inline data or a path.', { harness: 'pi' });
    }),
  );
}

/** Pi's prompt is plain text: file references become a trailing list the model can read. */
export function messageText(input: TurnInput): string {
  if (!input.files || input.files.length === 0) return input.text;
  const refs = input.files.map((file) =>
    file.lines ? `${file.path}:${file.lines.start}${file.lines.end ? `-${file.lines.end}` : ''}` : file.path,
  );
  return `${input.text}\n\nReferenced files:\n${refs.map((ref) => `- ${ref}`).join('\n')}`;
}
