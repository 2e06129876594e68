package dev.iggysink.application.status;

/**
 * From best to worst (a process reports its worst sink): OK; PAUSED = polling stopped on request, uploads and commits
 * go on; DEGRADED = still working toward delivery (store or source unreachable, retrying, or still starting);
 * FAILED = needs a person.
 */
public enum Health { OK, PAUSED, DEGRADED, FAILED }
