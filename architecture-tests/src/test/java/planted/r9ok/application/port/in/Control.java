package planted.r9ok.application.port.in;

public interface Control {
    void flush();
}
