package planted.r9.bootstrap.admin;

import planted.r9.application.service.Pipeline;

/** Planted: the admin server reaches into the pipeline's classes. */
public final class Server {
    private final Pipeline pipeline;

    public Server(Pipeline pipeline) {
        this.pipeline = pipeline;
    }

    public void flush() {
        pipeline.flush();
    }
}
