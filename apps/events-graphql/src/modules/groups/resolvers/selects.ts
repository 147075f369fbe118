import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved selects `name` directly (through fragments too). The reference's
 * object guard refuses a selection by the types it reaches: `members { total }` is anyone's to ask,
 * `members { elements { … } }` reaches Member, which anonymous callers may not.
 */
export function selects(info: GraphQLResolveInfo, name: string): boolean {
  const visit = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name;
      if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet);
      return visit(info.fragments[selection.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}
