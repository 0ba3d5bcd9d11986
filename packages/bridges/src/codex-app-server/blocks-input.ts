// Pure: the blocks mode's input, one NDJSON block per line (docs/architecture/bridges.md, "Blocks
// mode"). `user` carries a turn's input (text, or content parts that may name attachments) with an
// optional model, provider and reasoning effort; `attachment.chunk` carries one base64 piece of an
// image or a file, assembled by id once every piece is in; `interrupt` stops the running turn. Bad
// blocks throw BlockError with a sentence the sender can act on.
import { EFFORT_LEVELS, type Effort, type FileRef, type ImageRef, type TurnInput } from '@reins/core';
import { z } from 'zod';

export class BlockError extends Error {
  override readonly name = 'BlockError';
}

/** The largest attachment taken, and all pending attachments together (bytes, decoded). */
export const MAX_ATTACHMENT_BYTES = 64 * 1024 * 1024;
export const MAX_PENDING_ATTACHMENT_BYTES = 256 * 1024 * 1024;
/** Pieces one attachment may come in. */
const MAX_CHUNKS = 100_000;

const ContentPartSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.enum(['image', 'file']),
    attachmentId: z.string().min(1).optional(),
    data: z.string().optional(),
    url: z.string().optional(),
    path: z.string().min(1).optional(),
    mediaType: z.string().optional(),
  }),
  z.object({ type: z.literal('localImage'), path: z.string().min(1) }),
  z.object({ type: z.literal('mention'), path: z.string().min(1) }),
]);

const UserBlockSchema = z.object({
  type: z.literal('user'),
  text: z.string().optional(),
  content: z.array(ContentPartSchema).optional(),
  attachments: z.array(z.string().min(1)).optional(),
  model: z.string().min(1).optional(),
  provider: z.string().min(1).optional(),
  reasoningEffort: z.string().min(1).optional(),
  effort: z.string().min(1).optional(),
});

const ChunkBlockSchema = z.object({
  type: z.literal('attachment.chunk'),
  id: z.string().min(1),
  index: z.number().int().nonnegative().max(MAX_CHUNKS),
  total: z.number().int().positive().max(MAX_CHUNKS).optional(),
  final: z.boolean().optional(),
  data: z.string(),
  kind: z.enum(['image', 'file']).optional(),
  mediaType: z.string().optional(),
  name: z.string().optional(),
});

const BlockSchema = z.discriminatedUnion('type', [
  UserBlockSchema,
  ChunkBlockSchema,
  z.object({ type: z.literal('interrupt') }),
]);

export type UserBlock = z.infer<typeof UserBlockSchema>;
export type ChunkBlock = z.infer<typeof ChunkBlockSchema>;
export type Block = z.infer<typeof BlockSchema>;

/** One line of blocks-mode input, checked. */
export function parseBlock(line: string): Block {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new BlockError('A block must be one JSON object per line; this line is not JSON.');
  }
  const parsed = BlockSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new BlockError(
      `Not a block this bridge takes (user, attachment.chunk, interrupt): ${where}${issue?.message ?? 'invalid'}.`,
    );
  }
  return parsed.data;
}

/** The effort a user block asks for (`reasoningEffort`, or `effort`), checked. */
export function blockEffortOf(block: UserBlock): Effort | undefined {
  const effort = block.reasoningEffort ?? block.effort;
  if (effort === undefined || effort === 'default') return undefined;
  if (!(EFFORT_LEVELS as readonly string[]).includes(effort)) {
    throw new BlockError(`reasoningEffort must be one of ${EFFORT_LEVELS.join(', ')} (got ${JSON.stringify(effort)}).`);
  }
  return effort as Effort;
}

export interface Attachment {
  id: string;
  kind: 'image' | 'file';
  mediaType: string | undefined;
  name: string | undefined;
  bytes: Buffer;
}

interface Pending {
  kind: 'image' | 'file' | undefined;
  mediaType: string | undefined;
  name: string | undefined;
  pieces: Map<number, Buffer>;
  bytes: number;
  total: number | undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Attachments arriving in pieces, and the ones complete (bounded, see the limits above). */
export class Attachments {
  private readonly pending = new Map<string, Pending>();
  private readonly complete = new Map<string, Attachment>();
  private pendingBytes = 0;

  /** Takes one piece; returns the attachment when this piece completed it. */
  add(chunk: ChunkBlock): Attachment | undefined {
    if (this.complete.has(chunk.id)) throw new BlockError(`Attachment ${chunk.id} is already complete.`);
    const data = chunk.data.replace(/\s/g, '');
    if (!BASE64.test(data)) throw new BlockError(`Attachment ${chunk.id}, piece ${chunk.index}: data is not base64.`);
    const piece = Buffer.from(data, 'base64');
    const entry: Pending = this.pending.get(chunk.id) ?? {
      kind: undefined,
      mediaType: undefined,
      name: undefined,
      pieces: new Map(),
      bytes: 0,
      total: undefined,
    };
    if (entry.pieces.has(chunk.index)) throw new BlockError(`Attachment ${chunk.id}: piece ${chunk.index} came twice.`);
    if (entry.bytes + piece.length > MAX_ATTACHMENT_BYTES) {
      this.drop(chunk.id);
      throw new BlockError(`Attachment ${chunk.id} is over ${MAX_ATTACHMENT_BYTES} bytes; it was dropped.`);
    }
    if (this.pendingBytes + piece.length > MAX_PENDING_ATTACHMENT_BYTES) {
      throw new BlockError(
        `Attachments waiting for their pieces hold over ${MAX_PENDING_ATTACHMENT_BYTES} bytes; send fewer at once.`,
      );
    }
    entry.kind = chunk.kind ?? entry.kind;
    entry.mediaType = chunk.mediaType ?? entry.mediaType;
    entry.name = chunk.name ?? entry.name;
    if (chunk.total !== undefined) entry.total = chunk.total;
    if (chunk.final) entry.total = chunk.index + 1;
    if (entry.total !== undefined && chunk.index >= entry.total) {
      throw new BlockError(`Attachment ${chunk.id}: piece ${chunk.index} is past its total of ${entry.total}.`);
    }
    entry.pieces.set(chunk.index, piece);
    entry.bytes += piece.length;
    this.pendingBytes += piece.length;
    this.pending.set(chunk.id, entry);
    if (entry.total === undefined || entry.pieces.size < entry.total) return undefined;
    const parts: Buffer[] = [];
    for (let index = 0; index < entry.total; index++) parts.push(entry.pieces.get(index) as Buffer);
    this.drop(chunk.id);
    const kind = entry.kind ?? (entry.mediaType?.startsWith('image/') ? 'image' : 'file');
    const attachment: Attachment = {
      id: chunk.id,
      kind,
      mediaType: entry.mediaType,
      name: entry.name,
      bytes: Buffer.concat(parts),
    };
    this.complete.set(chunk.id, attachment);
    return attachment;
  }

  /** A complete attachment, taken out (a turn uses it once). */
  take(id: string): Attachment {
    const attachment = this.complete.get(id);
    if (!attachment) {
      const pending = this.pending.get(id);
      throw new BlockError(
        pending
          ? `Attachment ${id} is not complete: ${pending.pieces.size} of ${pending.total ?? 'an unknown number of'} pieces arrived.`
          : `No attachment ${id}; send its attachment.chunk blocks first.`,
      );
    }
    this.complete.delete(id);
    return attachment;
  }

  private drop(id: string): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pendingBytes -= entry.bytes;
    this.pending.delete(id);
  }
}

/** Writes a file attachment where the harness can read it; returns its path. */
export type FileWriter = (attachment: Attachment) => Promise<string>;

function imageOf(attachment: Attachment): ImageRef {
  return { source: 'data', mediaType: attachment.mediaType ?? 'image/png', data: attachment.bytes.toString('base64') };
}

/** A user block -> the turn input, its attachments taken out of `attachments`. */
export async function blockInputOf(
  block: UserBlock,
  attachments: Attachments,
  writeFile: FileWriter,
): Promise<TurnInput> {
  const texts: string[] = [];
  const images: ImageRef[] = [];
  const files: FileRef[] = [];
  if (block.text !== undefined && block.text !== '') texts.push(block.text);
  const attach = async (attachment: Attachment, as?: 'image' | 'file') => {
    if ((as ?? attachment.kind) === 'image') images.push(imageOf(attachment));
    else files.push({ path: await writeFile(attachment) });
  };
  for (const part of block.content ?? []) {
    if (part.type === 'text') {
      if (part.text !== '') texts.push(part.text);
    } else if (part.type === 'localImage') {
      images.push({ source: 'path', path: part.path });
    } else if (part.type === 'mention') {
      files.push({ path: part.path });
    } else if (part.attachmentId) {
      await attach(attachments.take(part.attachmentId), part.type);
    } else if (part.type === 'image' && part.data) {
      images.push({ source: 'data', mediaType: part.mediaType ?? 'image/png', data: part.data });
    } else if (part.type === 'image' && part.url) {
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(part.url);
      if (!match) throw new BlockError('An image url must be a base64 data: URL; send other images as attachments.');
      images.push({ source: 'data', mediaType: match[1] as string, data: match[2] as string });
    } else if (part.path) {
      if (part.type === 'image') images.push({ source: 'path', path: part.path });
      else files.push({ path: part.path });
    } else {
      throw new BlockError(
        `A ${part.type} part needs an attachmentId, a path${part.type === 'image' ? ', data or a data: url' : ''}.`,
      );
    }
  }
  for (const id of block.attachments ?? []) await attach(attachments.take(id));
  if (texts.length === 0 && images.length === 0 && files.length === 0) {
    throw new BlockError('A user block needs text, content or attachments.');
  }
  return {
    text: texts.join('\n\n'),
    ...(images.length > 0 ? { images } : {}),
    ...(files.length > 0 ? { files } : {}),
  };
}
