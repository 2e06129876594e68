/** Read-only views of the running sink for health, status and metrics endpoints. No logic lives here. */
package dev.iggysink.application.status;
