import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { BadInput } from '@agora/core';
import type { GraphQLContext } from '../../graphql/context.js';
import type { UploadPart } from '../../http/uploads.js';

/** An Upload value: the name of the multipart part carrying the file (both conventions end up so). */
export class UploadRef {
  constructor(readonly part: string) {}
}

function parseUpload(value: unknown): UploadRef {
  if (value instanceof UploadRef) return value;
  if (typeof value !== 'string' || value === '') {
    throw new GraphQLError('Upload must name a part of the multipart request');
  }
  return new UploadRef(value);
}

export const UploadScalar = new GraphQLScalarType<UploadRef, never>({
  name: 'Upload',
  description: 'A file sent in the same multipart request: the name of the part that carries it.',
  serialize: () => {
    throw new GraphQLError('Upload is an input type');
  },
  parseValue: parseUpload,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('Upload must be a string', { nodes: ast });
    return parseUpload(ast.value);
  },
});

/** The file an Upload value names in this request, or the refusal a client can act on. */
export function uploadedFile(ctx: GraphQLContext, value: unknown): UploadPart {
  const ref = parseUpload(value);
  const part = ctx.uploads?.get(ref.part);
  if (!part) {
    throw new BadInput(`No file was sent under the name ${JSON.stringify(ref.part)}`, {
      code: 'upload_missing',
      fields: { file: ['must name a file part of the multipart request'] },
    });
  }
  return part;
}
