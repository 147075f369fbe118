import type { InstanceRule } from '../modules/instance/instance.service.js';

/** Rule (3.4; `hint` 4.2, `translations` 4.4). */
export interface RuleJson {
  id: string;
  text: string;
  hint: string;
  translations: Record<string, { text: string; hint: string }>;
}

export function serializeRule(rule: InstanceRule): RuleJson {
  return { id: rule.id, text: rule.text, hint: rule.hint, translations: {} };
}
