"""AutoGraph's source transformation (``ast``): Python control flow -> calls into ``operators``.

- ``if``/``elif``/``else`` -> ``ag__.if_stmt(test, true_fn, false_fn, state)``; an ``if`` whose
  branches both end in ``return`` (after moving the statements that follow an early return into
  its ``else``) becomes ``return ag__.if_return(test, true_fn, false_fn)``;
- ``while`` -> ``ag__.while_stmt(test_fn, body_fn, state)``;
- ``for x in it`` -> ``ag__.for_stmt(it, body_fn, state)`` (``tf.range(...)`` calls become a lazy
  ``ag__.range_`` so a loop to a computed bound stays a graph loop);
- ``break``/``continue`` -> flag variables that guard the rest of the loop body and the loop test;
- ``print(...)`` -> ``ag__.print_(...)``: Python's print, once per trace, as TF 2.21's AutoGraph leaves it
  (trace-time tensors print as TF's graph tensors; silent when a traced signature is re-run for new shapes).

State is the tuple of names the construct assigns; names not yet bound are passed as
``ag__.UNDEFINED``. Generated code keeps the user's line numbers, so errors point at their line.
"""

import ast
import itertools

_counter = itertools.count()


def _name(id_, ctx=None):
    return ast.Name(id=id_, ctx=ctx or ast.Load())


def _ag(attr):
    return ast.Attribute(value=_name("ag__"), attr=attr, ctx=ast.Load())


class _Assigned(ast.NodeVisitor):
    """Names bound by a statement list (not inside nested functions/classes)."""

    def __init__(self):
        self.names = []

    def _add(self, n):
        if n not in self.names:
            self.names.append(n)

    def visit_Name(self, node):  # noqa: N802
        if isinstance(node.ctx, ast.Store | ast.Del):
            self._add(node.id)

    def visit_FunctionDef(self, node):  # noqa: N802
        self._add(node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):  # noqa: N802
        self._add(node.name)

    def visit_Lambda(self, node):  # noqa: N802
        return

    def visit_ListComp(self, node):  # noqa: N802
        return

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp


def assigned(stmts):
    v = _Assigned()
    for s in stmts:
        v.visit(s)
    return [n for n in v.names if not n.startswith("__ag_fn")]


def _contains(stmts, types, stop_at_loops=True):
    for s in stmts:
        for node in _walk_no_nested(s, stop_at_loops):
            if isinstance(node, types):
                return True
    return False


def _walk_no_nested(node, stop_at_loops):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
                continue
            if stop_at_loops and isinstance(child, ast.For | ast.While):
                continue
            stack.append(child)


def _ends_with_return(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _ends_with_return(last.body) and _ends_with_return(last.orelse)
    return False


def _state_tuple(names, ctx):
    return ast.Tuple(elts=[_name(n, ctx) for n in names], ctx=ctx)


def _load_state(names):
    """``(locals().get('a', ag__.UNDEFINED), ...)``."""
    elts = [ast.Call(func=ast.Attribute(value=ast.Call(func=_name("locals"), args=[], keywords=[]),
                                        attr="get", ctx=ast.Load()),
                     args=[ast.Constant(n), _ag("UNDEFINED")], keywords=[]) for n in names]
    return ast.Tuple(elts=elts, ctx=ast.Load())


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[])


def _fn(name, params, body):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None,
                           type_params=[])


class ControlFlowTransformer(ast.NodeTransformer):
    """Rewrites one function body (see module docstring)."""

    # -- statement lists: early returns and break/continue flags first -------------------------------------
    def _block(self, stmts, loop_flags=None):
        stmts = self._move_after_early_return(stmts)
        if loop_flags is not None:
            stmts = self._lower_break_continue(stmts, loop_flags)
        out = []
        for s in stmts:
            r = self.visit(s)
            if r is None:
                continue
            out.extend(r if isinstance(r, list) else [r])
        return out

    def _move_after_early_return(self, stmts):
        stmts = list(stmts)
        for i, s in enumerate(stmts):
            if isinstance(s, ast.If) and i + 1 < len(stmts) and _ends_with_return(s.body) and \
                    not _ends_with_return(s.orelse) and not _contains(stmts[i + 1:], (ast.Break, ast.Continue)):
                rest = stmts[i + 1:]
                s.orelse = self._move_after_early_return(list(s.orelse) + rest)
                return stmts[:i + 1]
        return stmts

    def _lower_break_continue(self, stmts, flags):
        """Replace break/continue (not in nested loops) with flag assignments; guard what follows."""
        brk, cont = flags
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Break):
                out.append(ast.Assign(targets=[_name(brk, ast.Store())], value=ast.Constant(True), lineno=s.lineno))
                return out
            if isinstance(s, ast.Continue):
                out.append(ast.Assign(targets=[_name(cont, ast.Store())], value=ast.Constant(True),
                                      lineno=s.lineno))
                return out
            if isinstance(s, ast.If) and _contains([s], (ast.Break, ast.Continue)):
                s.body = self._lower_break_continue(s.body, flags)
                s.orelse = self._lower_break_continue(s.orelse, flags)
                out.append(s)
                rest = stmts[i + 1:]
                if rest:
                    test = ast.UnaryOp(op=ast.Not(), operand=ast.BoolOp(op=ast.Or(), values=[
                        _name(brk), _name(cont)]))  # rewritten to ag__.not_/or_ when visited
                    out.append(ast.If(test=test, body=self._lower_break_continue(rest, flags), orelse=[],
                                      lineno=rest[0].lineno))
                return out
            out.append(s)
        return out

    # -- function definitions: convert the body ----------------------------------------------------------
    def visit_FunctionDef(self, node):  # noqa: N802
        node.body = self._block(node.body)
        return node

    def visit_Lambda(self, node):  # noqa: N802
        return node

    # -- if ---------------------------------------------------------------------------------------------
    def visit_If(self, node):  # noqa: N802
        k = next(_counter)
        if _ends_with_return(node.body) and _ends_with_return(node.orelse):
            # the names a branch assigns are its parameters (bound to their current values), as in if_stmt:
            # a branch that reads a name before rebinding it (``x = x + 1``) must see the outer value
            names = assigned(node.body + node.orelse)
            t = _fn(f"__ag_fn_if_true_{k}", names, self._block(node.body))
            f = _fn(f"__ag_fn_if_false_{k}", names, self._block(node.orelse))
            call = ast.Call(func=_ag("if_return"), args=[self.visit(node.test), _name(t.name), _name(f.name),
                                                         _load_state(names)], keywords=[])
            return [t, f, ast.Return(value=call)]
        if _contains(node.body + node.orelse, (ast.Return,)):
            node.body = self._block(node.body)
            node.orelse = self._block(node.orelse)
            return node  # a return in only one branch, not at its end: left as Python
        names = assigned(node.body + node.orelse)
        body = self._block(node.body) + [ast.Return(value=_state_tuple(names, ast.Load()))]
        orelse = self._block(node.orelse) + [ast.Return(value=_state_tuple(names, ast.Load()))]
        t = _fn(f"__ag_fn_if_true_{k}", names, body)
        f = _fn(f"__ag_fn_if_false_{k}", names, orelse)
        call = ast.Call(func=_ag("if_stmt"), args=[self.visit(node.test), _name(t.name), _name(f.name),
                                                   _load_state(names), ast.Constant(tuple(names))], keywords=[])
        assign = ast.Assign(targets=[_state_tuple(names, ast.Store())], value=call) if names else ast.Expr(call)
        return [t, f, assign]

    # -- loops ------------------------------------------------------------------------------------------
    def _loop_flags(self, node):
        if _contains(node.body, (ast.Break, ast.Continue)):
            k = next(_counter)
            return (f"__ag_break_{k}", f"__ag_continue_{k}")
        return None

    def visit_While(self, node):  # noqa: N802
        if node.orelse or _contains(node.body, (ast.Return,)):
            self.generic_visit(node)
            return node
        k = next(_counter)
        flags = self._loop_flags(node)
        body_stmts = list(node.body)
        if flags:
            reset = ast.Assign(targets=[_name(flags[1], ast.Store())], value=ast.Constant(False))
            body_stmts = [reset] + body_stmts
        body = self._block(body_stmts, flags)
        names = assigned(body)
        if flags:
            names = [n for n in names if n != flags[1]] + [flags[1]]
            if flags[0] not in names:
                names.append(flags[0])
        test = self.visit(node.test)
        if flags:
            test = ast.Call(func=_ag("and_"), args=[
                ast.Lambda(args=_no_args(), body=ast.Call(func=_ag("not_"), args=[_name(flags[0])], keywords=[])),
                ast.Lambda(args=_no_args(), body=test)], keywords=[])
        cond_fn = _fn(f"__ag_fn_while_test_{k}", names, [ast.Return(value=test)])
        body_fn = _fn(f"__ag_fn_while_body_{k}", names, body + [ast.Return(value=_state_tuple(names, ast.Load()))])
        pre = []
        if flags:
            pre = [ast.Assign(targets=[_name(f, ast.Store())], value=ast.Constant(False)) for f in flags]
        call = ast.Call(func=_ag("while_stmt"), args=[_name(cond_fn.name), _name(body_fn.name), _load_state(names),
                                                      ast.Constant(tuple(names))], keywords=[])
        return pre + [cond_fn, body_fn, ast.Assign(targets=[_state_tuple(names, ast.Store())], value=call)]

    def visit_For(self, node):  # noqa: N802
        if node.orelse or _contains(node.body, (ast.Return,)):
            self.generic_visit(node)
            return node
        k = next(_counter)
        flags = self._loop_flags(node)
        elem = f"__ag_elem_{k}"
        body_stmts = [ast.Assign(targets=[node.target], value=_name(elem), lineno=node.lineno)] + list(node.body)
        if flags:
            reset = ast.Assign(targets=[_name(flags[1], ast.Store())], value=ast.Constant(False))
            body_stmts = [reset] + body_stmts
        body = self._block(body_stmts, flags)
        names = assigned(body)
        if flags:
            names = [n for n in names if n != flags[1]] + [flags[1]]
            if flags[0] not in names:
                names.append(flags[0])
        body_fn = _fn(f"__ag_fn_for_body_{k}", [elem] + names,
                      body + [ast.Return(value=_state_tuple(names, ast.Load()))])
        it = self.visit(node.iter)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "range":
            it = ast.Call(func=_ag("range_"), args=[it.func] + it.args, keywords=it.keywords)
        pre = []
        if flags:
            pre = [ast.Assign(targets=[_name(f, ast.Store())], value=ast.Constant(False)) for f in flags]
        extra = ast.Constant(flags[0] if flags else None)
        call = ast.Call(func=_ag("for_stmt"), args=[it, _name(body_fn.name), _load_state(names),
                                                    ast.Constant(tuple(names)), extra], keywords=[])
        return pre + [body_fn, ast.Assign(targets=[_state_tuple(names, ast.Store())], value=call)]

    # -- boolean operators on tensors -------------------------------------------------------------------------
    def visit_BoolOp(self, node):  # noqa: N802
        self.generic_visit(node)
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        result = node.values[-1]
        for v in reversed(node.values[:-1]):
            result = ast.Call(func=_ag(fn), args=[ast.Lambda(args=_no_args(), body=v),
                                                   ast.Lambda(args=_no_args(), body=result)], keywords=[])
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node):  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(ast.Call(func=_ag("not_"), args=[node.operand], keywords=[]), node)
        return node

    # -- print --------------------------------------------------------------------------------------------
    def visit_Call(self, node):  # noqa: N802
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "print":
            node.func = _ag("print_")
        return node
