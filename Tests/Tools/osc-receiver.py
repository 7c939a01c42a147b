#!/usr/bin/env python3
"""A real OSC peer for OSCOutCLITests: python-osc (PyPI) serving UDP or TCP (OSC 1.1, SLIP
framing); prints one JSON line per message it decodes: address, arguments, and the time tag of
the bundle it came in (None for a plain message)."""
import argparse, json, signal, socket, sys, threading

from pythonosc import dispatcher, osc_server, osc_tcp_server
from pythonosc.osc_packet import OscPacket


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--udp", type=int)
    ap.add_argument("--tcp", type=int)
    ap.add_argument("--seconds", type=float, default=60)
    args = ap.parse_args()
    lock = threading.Lock()

    def emit(address, values, timetag):
        with lock:
            sys.stdout.write(json.dumps({"address": address, "args": list(values), "bundle": timetag}) + "\n")
            sys.stdout.flush()

    class D(dispatcher.Dispatcher):
        # python-osc unpacks bundles into timed messages; keep whether one came in a bundle
        def call_handlers_for_packet(self, data, client_address):
            packet = OscPacket(data)
            for timed in packet.messages:
                bundled = data[:8] == b"#bundle\x00"
                emit(timed.message.address, timed.message.params, timed.time if bundled else None)
            return []

        async def async_call_handlers_for_packet(self, data, client_address):
            return self.call_handlers_for_packet(data, client_address)

    d = D()
    if args.tcp:
        server = osc_tcp_server.ThreadingOSCTCPServer(("127.0.0.1", args.tcp), d, mode="1.1")
    else:
        # one thread, in arrival order, with a deep receive buffer: a `replay --fast` burst is
        # thousands of datagrams, more than the default buffer holds while Python catches up
        server = osc_server.BlockingOSCUDPServer(("127.0.0.1", args.udp), d)
        for opt in (getattr(socket, "SO_RCVBUFFORCE", 33), socket.SO_RCVBUF):
            try:
                server.socket.setsockopt(socket.SOL_SOCKET, opt, 16 << 20)
                break
            except OSError:
                continue
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write(json.dumps({"listening": args.tcp or args.udp}) + "\n")
    sys.stdout.flush()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait(args.seconds)
    server.shutdown()


if __name__ == "__main__":
    main()
