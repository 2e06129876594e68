/**
 * What the object sink's and the table sink's self-audits (issue 48) share: rounds at a pace and within a budget of
 * requests per minute ({@link dev.iggysink.application.audit.AuditPace}), and the bounded hand-over of commits from
 * the consumer loops to the audit's thread ({@link dev.iggysink.application.audit.AuditQueue}). What they check is
 * their own.
 */
package dev.iggysink.application.audit;
