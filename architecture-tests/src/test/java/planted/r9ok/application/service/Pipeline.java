package planted.r9ok.application.service;

import planted.r9ok.application.port.in.Control;

public final class Pipeline implements Control {
    @Override
    public void flush() {
    }
}
