/**
 * Validated settings of the pipeline of one sink connector: plain records with invariants, produced by the config
 * adapter. No option of a technology lives here (an architecture rule keeps it so): the store's, Iggy's and the admin
 * server's settings are records of their own modules. Secrets are {@link dev.iggysink.application.settings.Secret}s,
 * which never print their value.
 */
package dev.iggysink.application.settings;
