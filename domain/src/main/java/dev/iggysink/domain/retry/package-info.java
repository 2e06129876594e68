/**
 * Retry maths: how many attempts, how long to wait (exponential, jittered, capped, honouring Retry-After) and which
 * HTTP statuses are worth retrying. The randomness comes in as an argument so the maths is deterministic in tests.
 */
package dev.iggysink.domain.retry;
