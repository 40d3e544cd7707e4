# The bare Flight reader: Arrow C++'s Flight client (pyarrow.flight) reads every batch of a query and discards it,
# the reference a client's export is measured against. Prints its loop's time and the rows read, as JSON.
#   python bare-reader.py grpc://HOST:PORT 'SELECT …'   (a Basic handshake as $READ_USER, $READ_PASSWORD: any for
#                                                        the replay server)
import json
import os
import sys
import time

import pyarrow.flight as flight


def main(url, sql):
    client = flight.FlightClient(url)
    start = time.perf_counter()
    header = client.authenticate_basic_token(os.environ.get("READ_USER", "bench"), os.environ.get("READ_PASSWORD", "bench"))
    options = flight.FlightCallOptions(headers=[header])
    info = client.get_flight_info(flight.FlightDescriptor.for_command(sql), options)
    rows = 0
    for endpoint in info.endpoints:
        reader = client.do_get(endpoint.ticket, options)
        while True:
            try:
                chunk = reader.read_chunk()
            except StopIteration:
                break
            rows += chunk.data.num_rows
    json.dump({"ms": (time.perf_counter() - start) * 1000, "rows": rows}, sys.stdout)


if __name__ == "__main__":
    main(*sys.argv[1:3])
