# The real readers of test/helpers/real-readers.ts: Parquet files read by pyarrow (Arrow C++, what pandas uses) and
# by DuckDB, or the results of a query over Arrow Flight read by pyarrow's Flight client. Prints the columns, their
# Arrow types and values as JSON, each value tagged exactly (real-readers.ts turns the tags into texts): no value
# passes through a Python date or float formatting that could round it or refuse its year.
#   python real-readers.py parquet FILE...     {FILE: {"pyarrow": columns, "duckdb": columns}}, a reader's
#                                              refusal as {"error": "..."} in place of its columns
#   READ_PASSWORD=… python real-readers.py flight grpc://HOST:PORT USER SQL   (the password never on a command line)
import base64
import json
import math
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

UNITS = {"s": "s", "ms": "ms", "us": "us", "ns": "ns"}


def is_text(typ):
    return pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ)


def tagger(typ):
    """The function that tags one non-null value of Arrow type `typ` (a Python object from to_pylist of a
    cast-safe array): chosen once per array, not once per value (the type tests cost more than the values)."""
    if pa.types.is_boolean(typ):
        return lambda value: value
    if pa.types.is_integer(typ):
        return lambda value: {"int": str(value)}
    if pa.types.is_floating(typ):
        width = "f32" if typ.bit_width <= 32 else "f64"

        def floating(value):
            x = float(value)
            text = "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity") if math.isinf(x) else repr(x)
            return {width: text}

        return floating
    if pa.types.is_decimal(typ):
        return lambda value: {"dec": format(value, "f")}
    if is_text(typ):
        return lambda value: {"str": value}
    if (
        pa.types.is_binary(typ)
        or pa.types.is_large_binary(typ)
        or pa.types.is_binary_view(typ)
        or pa.types.is_fixed_size_binary(typ)
    ):
        return lambda value: {"bin": base64.b64encode(value).decode("ascii")}
    if pa.types.is_struct(typ):
        fields = [(typ.field(i).name, tagger(typ.field(i).type)) for i in range(typ.num_fields)]
        return lambda value: {"struct": {name: tagged(value[name], t) for name, t in fields}}
    if pa.types.is_map(typ):
        key, item, text_keys = tagger(typ.key_type), tagger(typ.item_type), is_text(typ.key_type)
        return lambda value: {"map": [[tagged(k, key), tagged(v, item)] for k, v in value], "text_keys": text_keys}
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
        element = tagger(typ.value_type)
        return lambda value: [tagged(v, element) for v in value]
    raise TypeError(f"no tag for {typ}")


def tagged(value, tag):
    return None if value is None else tag(value)


def exact(array):
    """The array with its temporal values as integers (any year), and its Arrow type before that."""
    typ = array.type
    if pa.types.is_date32(typ):
        return array.cast(pa.int32()), ("date", None, None)
    if pa.types.is_date64(typ):
        return array.cast(pa.int64()), ("date64", "ms", None)
    if pa.types.is_time(typ):
        return array.cast(pa.int32() if typ.bit_width == 32 else pa.int64()), ("time", UNITS[typ.unit], None)
    if pa.types.is_timestamp(typ):
        return array.cast(pa.int64()), ("ts", UNITS[typ.unit], typ.tz)
    return array, None


def convert(array):
    """Each value of `array` tagged; nested arrays are walked value by value with their temporal children exact."""
    plain, temporal = exact(array)
    if temporal:
        kind, unit, tz = temporal
        out = []
        for v in plain.to_pylist():
            if v is None:
                out.append(None)
            elif kind == "date":
                out.append({"date": str(v)})
            elif kind == "date64":
                out.append({"date": str(v // 86_400_000)})
            elif kind == "time":
                out.append({"time": str(v), "unit": unit})
            else:
                out.append({"ts": str(v), "unit": unit, "tz": tz})
        return out
    typ = array.type
    if pa.types.is_struct(typ):
        fields = [convert(array.field(i)) for i in range(typ.num_fields)]
        valid = array.is_valid().to_pylist()
        return [
            {"struct": {typ.field(i).name: fields[i][r] for i in range(typ.num_fields)}} if valid[r] else None
            for r in range(len(array))
        ]
    if pa.types.is_map(typ):
        keys = convert(array.keys)
        items = convert(array.items)
        offsets = array.offsets.to_pylist()
        valid = array.is_valid().to_pylist()
        text_keys = is_text(typ.key_type)
        return [
            {"map": [[keys[j], items[j]] for j in range(offsets[r], offsets[r + 1])], "text_keys": text_keys}
            if valid[r]
            else None
            for r in range(len(array))
        ]
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        values = convert(array.values)
        offsets = array.offsets.to_pylist()
        valid = array.is_valid().to_pylist()
        return [values[offsets[r] : offsets[r + 1]] if valid[r] else None for r in range(len(array))]
    if pa.types.is_dictionary(typ):
        return convert(array.dictionary_decode())
    tag = tagger(typ)
    return [None if v is None else tag(v) for v in array.to_pylist()]


def read_flight(url, user, sql):
    import pyarrow.flight as flight

    client = flight.FlightClient(url)
    options = flight.FlightCallOptions(headers=[client.authenticate_basic_token(user, os.environ["READ_PASSWORD"])])
    info = client.get_flight_info(flight.FlightDescriptor.for_command(sql), options)
    batches = []
    for endpoint in info.endpoints:
        batches.extend(client.do_get(endpoint.ticket, options).read_all().to_batches())
    return pa.Table.from_batches(batches, schema=info.schema)


def columns_of(table, reader):
    columns = []
    for name, column in zip(table.column_names, table.columns):
        values = []
        for chunk in column.chunks:
            values.extend(convert(chunk))
        columns.append({"name": name, "type": str(column.type), "values": values})
    return {"reader": reader, "rows": table.num_rows, "columns": columns}


def with_pyarrow(path):
    return columns_of(pq.read_table(path), f"pyarrow {pa.__version__}")


def with_duckdb(path):
    import duckdb

    arrow = duckdb.connect().execute("SELECT * FROM read_parquet(?)", [path]).arrow()
    return columns_of(arrow.read_all() if hasattr(arrow, "read_all") else arrow, f"duckdb {duckdb.__version__}")


def main(mode, *args):
    if mode == "flight":
        sys.stdout.write(json.dumps(columns_of(read_flight(*args), f"pyarrow {pa.__version__}")))
        return
    out = {}
    for path in args:
        out[path] = {}
        for reader, read in (("pyarrow", with_pyarrow), ("duckdb", with_duckdb)):
            try:
                out[path][reader] = read(path)
            except Exception as e:  # a file a reader refuses is the finding
                out[path][reader] = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main(*sys.argv[1:])
