"""``tfcore saved_model show``: print a SavedModel's tag-sets, signatures and functions like ``saved_model_cli``."""

from ..framework.commands import command
from . import saved_model
from .saved_model_protos import pb

_DT_NAMES = {}


def _dt(enum):
    if not _DT_NAMES:
        types = pb("types_pb2")
        _DT_NAMES.update({v: k for k, v in types.DataType.items()})
    return _DT_NAMES.get(enum, f"DT_{enum}")


def _shape(shape):
    if shape.unknown_rank:
        return "unknown_rank"
    dims = [d.size for d in shape.dim]
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _tensor_info(lines, kind, key, info, indent="    "):
    lines.append(f"{indent}{kind}['{key}'] tensor_info:")
    lines.append(f"{indent}    dtype: {_dt(info.dtype)}")
    lines.append(f"{indent}    shape: {_shape(info.tensor_shape)}")
    lines.append(f"{indent}    name: {info.name}")


def format_signature(lines, key, sdef):
    lines.append(f"signature_def['{key}']:")
    lines.append("  The given SavedModel SignatureDef contains the following input(s):")
    for k in sorted(sdef.inputs):
        _tensor_info(lines, "inputs", k, sdef.inputs[k])
    lines.append("  The given SavedModel SignatureDef contains the following output(s):")
    for k in sorted(sdef.outputs):
        _tensor_info(lines, "outputs", k, sdef.outputs[k])
    lines.append(f"  Method name is: {sdef.method_name}")


def _spec_text(spec):
    shape = spec.shape
    dims = "None" if shape.rank is None else "(" + ", ".join("None" if d is None else str(d)
                                                            for d in shape.as_list()) + \
        ("," if shape.rank == 1 else "") + ")"
    return f"TensorSpec(shape={dims}, dtype=tf.{spec.dtype.name}, name={spec.name!r})"


def show_all(export_dir):
    """The text ``saved_model_cli show --dir D --all`` prints."""
    meta = saved_model.read_meta_graph(export_dir)
    tags = ", ".join(meta.meta_info_def.tags)
    lines = [f"MetaGraphDef with tag-set: '{tags}' contains the following SignatureDefs:", ""]
    for key in sorted(meta.signature_def):
        format_signature(lines, key, meta.signature_def[key])
        lines.append("")
    lines.append("Concrete Functions:")
    og = meta.object_graph_def
    for ref in og.nodes[0].children:
        node = og.nodes[ref.node_id]
        if node.WhichOneof("kind") != "function":
            continue
        lines.append(f"  Function Name: '{ref.local_name}'")
        for i, name in enumerate(node.function.concrete_functions, 1):
            args, _ = saved_model._decode(og.concrete_functions[name].canonicalized_input_signature)
            lines.append(f"    Option #{i}")
            lines.append("      Callable with:")
            for j, spec in enumerate(args, 1):
                lines.append(f"        Argument #{j}")
                lines.append(f"          {spec.name or f'arg{j}'}: {_spec_text(spec)}")
    return "\n".join(lines)


def _add_arguments(p):
    sub = p.add_subparsers(dest="action", required=True)
    show = sub.add_parser("show", help="show tag-sets, SignatureDefs and functions of a SavedModel")
    show.add_argument("--dir", required=True, help="the SavedModel directory")
    show.add_argument("--all", action="store_true", help="print everything")
    show.add_argument("--tag_set", default=None, help="comma-separated tags of the MetaGraphDef")
    show.add_argument("--signature_def", default=None, help="print one SignatureDef")


@command("saved_model", "inspect SavedModels (saved_model show --dir D --all)", _add_arguments)
def _run(args):
    meta = saved_model.read_meta_graph(args.dir)
    if args.all:
        print(show_all(args.dir))
    elif args.signature_def:
        if args.signature_def not in meta.signature_def:
            raise SystemExit(f"no SignatureDef {args.signature_def!r} in {args.dir}; available: "
                             f"{sorted(meta.signature_def)}")
        lines = []
        format_signature(lines, args.signature_def, meta.signature_def[args.signature_def])
        print("\n".join(lines))
    elif args.tag_set:
        print("The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:")
        for key in sorted(meta.signature_def):
            print(f'SignatureDef key: "{key}"')
    else:
        print("The given SavedModel contains the following tag-sets:")
        print("'" + ", ".join(meta.meta_info_def.tags) + "'")
    return 0

