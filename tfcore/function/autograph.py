def convert_for_tracing(f):
    return f
