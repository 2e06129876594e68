/**
 * The architecture rules of docs/architecture.md as ArchUnit rules, each proven to fail on a planted violation (fixtures under
 * the {@code planted} package tree, compiled only for these tests). Nothing here is shipped.
 */
package dev.iggysink.architecture;
