package dev.iggysink.application.status;

/** OK; DEGRADED = still working toward delivery (store or source unreachable, retrying); FAILED = needs a person. */
public enum Health { OK, DEGRADED, FAILED }
