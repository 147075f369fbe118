import type { Config as ConfigFields, ConfigResolvers } from '../../../graphql/resolvers-types.generated.js';
import type { InstanceConfig } from '../config.service.js';

/** Fails to compile when the service's configuration object lacks a plain field of the SDL's `Config`. */
type Assignable<T extends U, U> = T;
export type PlainConfigFields = Assignable<
  InstanceConfig,
  Omit<ConfigFields, '__typename' | 'terms' | 'privacy'>
>;

// Every other field is a plain value of the configuration object.
export const Config: ConfigResolvers = {
  terms: (config, { locale }) => config.legal.terms(locale ?? 'en'),
  privacy: (config, { locale }) => config.legal.privacy(locale ?? 'en'),
};
