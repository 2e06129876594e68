package planted.r9ok.bootstrap.admin;

import planted.r9ok.application.port.in.Control;

/** Clean: the admin server knows the inbound port only. */
public final class Server {
    private final Control control;

    public Server(Control control) {
        this.control = control;
    }

    public void flush() {
        control.flush();
    }
}
