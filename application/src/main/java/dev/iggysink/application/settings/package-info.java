/**
 * Validated settings of one sink connector: plain records with invariants, produced by the config adapter. Secrets are
 * {@link dev.iggysink.application.settings.Secret}s, which never print their value.
 */
package dev.iggysink.application.settings;
