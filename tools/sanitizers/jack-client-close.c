/* The smallest JACK client: open, activate, run 0.3 s, close. Built with -fsanitize=thread by
 * tools/sanitizers/jack-repro, which shows why the JACK pass of `tools/test --sanitize thread`
 * runs with its own TSAN_OPTIONS (tools/sanitizers/README.md). */
#include <jack/jack.h>
#include <stdio.h>
#include <unistd.h>

static int cycles;
static int process(jack_nframes_t n, void *arg) { (void)n; (void)arg; cycles++; return 0; }

int main(void) {
    jack_status_t status;
    jack_client_t *c = jack_client_open("tsan-repro", JackNoStartServer, &status);
    if (!c) { fprintf(stderr, "jack-client-close: no server (status 0x%x)\n", (unsigned)status); return 2; }
    jack_set_process_callback(c, process, NULL);
    if (jack_activate(c) != 0) { fprintf(stderr, "jack-client-close: cannot activate\n"); return 2; }
    usleep(300000);
    jack_deactivate(c);
    jack_client_close(c);   /* libjack stops its threads with pthread_cancel here */
    printf("closed cleanly after %d cycles\n", cycles);
    return 0;
}
