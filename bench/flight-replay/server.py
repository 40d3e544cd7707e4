# A Flight server that replays prepared Arrow record batches as fast as the loopback allows: Arrow C++'s own
# Flight server (pyarrow.flight), independent of dlake and of the emulator, so that a benchmark measures the client.
# Its two tables are made once at start, 64 batches of the service's 4,095 rows each, and repeated to any row count
# (a batch is framed without copying its buffers):
#   flat    id BIGINT, name VARCHAR, amount DOUBLE, flag BOOLEAN, note VARCHAR (the emulator's `big`, nulls included)
#   nested  id BIGINT, tags LIST<VARCHAR>, point STRUCT<x DOUBLE, y DOUBLE>, attrs MAP<VARCHAR, INT>, note VARCHAR
# queried as `SELECT * FROM <table> LIMIT <rows>`. Authentication as the service's Flight (docs/api-facts.md §14):
# a call with `authorization: Basic …` (the handshake) is answered with `authorization: Bearer <token>`, and any
# Bearer is taken after that. Prints `ready PORT` once listening.
#   python server.py [PORT]
import re
import sys

import pyarrow as pa
import pyarrow.flight as flight

TOKEN = "replay-token"


class BearerMiddleware(flight.ServerMiddleware):
    def sending_headers(self):
        return {"authorization": f"Bearer {TOKEN}"}


class AuthFactory(flight.ServerMiddlewareFactory):
    """Takes any Basic or Bearer credentials; answers a Basic one with the bearer token."""

    def start_call(self, info, headers):
        auth = next(iter(headers.get("authorization", headers.get("Authorization", []))), "")
        if auth.lower().startswith("basic "):
            return BearerMiddleware()
        if auth.lower().startswith("bearer "):
            return None
        raise flight.FlightUnauthenticatedError("credentials required")


class NoOpAuth(flight.ServerAuthHandler):
    """The handshake itself exchanges nothing: its headers carry the credentials (the auth2 flow)."""

    def authenticate(self, outgoing, incoming):
        pass

    def is_valid(self, token):
        return ""


class Replay(flight.FlightServerBase):
    def __init__(self, location, tables):
        super().__init__(location, auth_handler=NoOpAuth(), middleware={"auth": AuthFactory()})
        self.tables = tables

    def _plan(self, sql):
        m = re.search(r"from\s+(\w+)(?:\s+limit\s+(\d+))?", sql, re.IGNORECASE)
        if not m or m.group(1) not in self.tables:
            raise flight.FlightServerError(f"no table in: {sql} (tables: {', '.join(sorted(self.tables))})")
        batches = self.tables[m.group(1)]
        rows = int(m.group(2)) if m.group(2) else sum(b.num_rows for b in batches)
        return m.group(1), rows

    def get_flight_info(self, context, descriptor):
        name, rows = self._plan(descriptor.command.decode())
        ticket = flight.Ticket(f"{name}:{rows}".encode())
        schema = self.tables[name][0].schema
        return flight.FlightInfo(schema, descriptor, [flight.FlightEndpoint(ticket, [])], -1, -1)

    def do_get(self, context, ticket):
        name, rows = ticket.ticket.decode().split(":")
        rows = int(rows)
        cycle = self.tables[name]
        out = []
        while rows > 0:
            for b in cycle:
                if rows <= 0:
                    break
                out.append(b if b.num_rows <= rows else b.slice(0, rows))
                rows -= b.num_rows
        table = pa.Table.from_batches(out, schema=cycle[0].schema)
        return flight.RecordBatchStream(table)


BATCH_ROWS = 4095
BATCHES = 64
NOTES = [
    "plain text",
    "with, commas, inside",
    'with "double quotes" inside',
    "line one\nline two",
    "naïve café – 東京 🚀",
    "",
    None,
]


def flat_batch(k):
    ids = range(k * BATCH_ROWS + 1, (k + 1) * BATCH_ROWS + 1)
    return pa.record_batch(
        [
            pa.array(ids, pa.int64()),
            pa.array([None if i % 97 == 0 else f"user_{i}" for i in ids]),
            pa.array([None if i % 89 == 0 else round((i * 7919) % 100000 / 100 - 500, 2) for i in ids]),
            pa.array([None if i % 53 == 0 else i % 2 == 0 for i in ids]),
            pa.array([NOTES[i % len(NOTES)] for i in ids]),
        ],
        names=["id", "name", "amount", "flag", "note"],
    )


def nested_batch(k):
    ids = range(k * BATCH_ROWS + 1, (k + 1) * BATCH_ROWS + 1)
    point = pa.struct([("x", pa.float64()), ("y", pa.float64())])
    attrs = pa.map_(pa.string(), pa.int32())
    return pa.record_batch(
        [
            pa.array(ids, pa.int64()),
            pa.array([None if i % 31 == 0 else [f"t{j}" for j in range(i % 4)] for i in ids], pa.list_(pa.string())),
            pa.array([None if i % 29 == 0 else {"x": i / 3, "y": -i / 7} for i in ids], point),
            pa.array([[("a", i % 1000), ("b", None)] if i % 5 else [] for i in ids], attrs),
            pa.array([NOTES[i % len(NOTES)] for i in ids]),
        ],
        names=["id", "tags", "point", "attrs", "note"],
    )


def main(port=0):
    tables = {
        "flat": [flat_batch(k) for k in range(BATCHES)],
        "nested": [nested_batch(k) for k in range(BATCHES)],
    }
    server = Replay(f"grpc://127.0.0.1:{port}", tables)
    print(f"ready {server.port}", flush=True)
    server.serve()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
