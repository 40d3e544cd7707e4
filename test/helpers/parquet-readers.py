# Reads Parquet files with pyarrow (Arrow C++) and DuckDB and prints, for each file and each reader, its rows
# with every value in dlake's canonical text (docs/cli-contract.md "Every type an export writes") as JSON: the
# test compares them with the NDJSON export of the same rows. Used by test/helpers/parquet-readers.ts.
import base64, json, math, struct, sys
from decimal import Decimal

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq


def js_number(digits, point, negative):
    """ECMAScript's Number::toString of 0.<digits> x 10^point."""
    k, n = len(digits), point
    if k <= n <= 21:
        s = digits + '0' * (n - k)
    elif 0 < n <= 21:
        s = digits[:n] + '.' + digits[n:]
    elif -6 < n <= 0:
        s = '0.' + '0' * (-n) + digits
    else:
        e = n - 1
        s = digits[0] + ('.' + digits[1:] if k > 1 else '') + 'e' + ('+' if e >= 0 else '-') + str(abs(e))
    return ('-' if negative else '') + s


def float_text(x, width):
    if math.isnan(x):
        return 'NaN'
    if math.isinf(x):
        return 'Infinity' if x > 0 else '-Infinity'
    if x == 0:
        return '-0' if math.copysign(1, x) < 0 else '0'
    if width == 32:
        f32 = lambda y: struct.unpack('f', struct.pack('f', y))[0]
        sci = next(t for t in ('%.*e' % (p, x) for p in range(9)) if f32(float(t)) == x)
    else:
        sci = '%.*e' % (next(p for p in range(17) if float('%.*e' % (p, x)) == x), x)
    mantissa, exp = sci.split('e')
    negative = mantissa.startswith('-')
    mantissa = mantissa.lstrip('-')
    digits = mantissa.replace('.', '').rstrip('0') or '0'
    return js_number(digits, int(exp) + 1, negative)


def civil(days):
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y = yoe + era * 400 + (1 if m <= 2 else 0)
    return ('-%04d' % -y if y < 0 else '%04d' % y) + '-%02d-%02d' % (m, d)


def clock(nanos):
    ms, sub = divmod(nanos, 1_000_000)
    s, f = divmod(ms, 1000)
    text = '%02d:%02d:%02d.%03d' % (s // 3600, s // 60 % 60, s % 60, f)
    if sub:
        six = '%06d' % sub
        text += six[:3] if six.endswith('000') else six
    return text


UNIT = {'s': 1_000_000_000, 'ms': 1_000_000, 'us': 1000, 'ns': 1}


def value(t, v):
    """A reader's value of Arrow type t as dlake's canonical JSON value."""
    if v is None:
        return None
    if pa.types.is_boolean(t):
        return v
    if pa.types.is_integer(t):
        return {'$n': str(v)}
    if pa.types.is_floating(t):
        text = float_text(float(v), 32 if t == pa.float32() else 64)
        return text if text in ('NaN', 'Infinity', '-Infinity') else {'$n': text}
    if pa.types.is_decimal(t):
        return {'$n': format(v, 'f')}
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return v
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return base64.b64encode(v).decode()
    if pa.types.is_date(t):
        return civil(v // 86_400_000 if pa.types.is_date64(t) else v)
    if pa.types.is_time(t):
        return clock(v * UNIT[t.unit])
    if pa.types.is_timestamp(t):
        nanos = v * UNIT[t.unit]
        days, rest = divmod(nanos, 86_400_000_000_000)
        return civil(days) + ' ' + clock(rest)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [value(t.value_type, x) for x in v]
    if pa.types.is_struct(t):
        return {f.name: value(f.type, v.get(f.name)) for f in t}
    if pa.types.is_map(t):
        if pa.types.is_string(t.key_type):
            return {k: value(t.item_type, x) for k, x in v}
        return [{'key': value(t.key_type, k), 'value': value(t.item_type, x)} for k, x in v]
    raise ValueError('no canonical text for %s' % t)


def raw(t):
    """The type `t` with every date, time and timestamp in it (nested ones too) as the integer it is stored as: a
    year before 1 or after 9999 is out of Python's range, so such values are read as their counts."""
    if pa.types.is_date32(t) or t == pa.time32('s') or t == pa.time32('ms'):
        return pa.int32()
    if pa.types.is_date64(t) or pa.types.is_time64(t) or pa.types.is_timestamp(t):
        return pa.int64()
    if pa.types.is_list(t):
        return pa.list_(pa.field(t.value_field.name, raw(t.value_type)))
    if pa.types.is_large_list(t):
        return pa.large_list(pa.field(t.value_field.name, raw(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, raw(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(raw(t.key_type), raw(t.item_type))
    return t


def rows_of(table):
    """A table's rows, each value in its canonical text by the column's type."""
    columns = []
    for f, col in zip(table.schema, table.columns):
        r = raw(f.type)
        values = (col.cast(r) if r != f.type else col).to_pylist()
        columns.append([value(f.type, x) for x in values])
    return [dict(zip(table.schema.names, row)) for row in zip(*columns)] if columns else []


def with_pyarrow(path):
    return rows_of(pq.read_table(path))


def with_duckdb(path):
    arrow = duckdb.connect().execute("SELECT * FROM read_parquet(?)", [path]).arrow()
    return rows_of(arrow.read_all() if hasattr(arrow, 'read_all') else arrow)


if __name__ == '__main__':
    out = {}
    for path in sys.argv[1:]:
        out[path] = {}
        for reader, read in (('pyarrow', with_pyarrow), ('duckdb', with_duckdb)):
            try:
                out[path][reader] = read(path)
            except Exception as e:  # the file a reader refuses is the finding
                out[path][reader] = {'error': '%s: %s' % (type(e).__name__, e)}
    json.dump(out, sys.stdout)
