"""The web client's wire types (src/cradle/web/wire.d.ts), made from their one source.

The server's answers and the WebSocket's messages are pydantic models (cradle.server.answers,
cradle.server.messages), the bodies it reads too (cradle.server.models); a game's view, events,
result lines and pieces are the game's TypedDicts, declared in its ``Presentation``
(cradle.core.contract). This script writes their JSON Schemas (pydantic's, and the same form for
the TypedDicts) as TypeScript declarations, which `make lint` checks the web client against
with Debian's tsc.

    python packaging/wire_types.py            # writes src/cradle/web/wire.d.ts
    python packaging/wire_types.py --check    # exit 1 when the file is not what it would write
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pydantic import BaseModel

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "src" / "cradle" / "web" / "wire.d.ts"
Schema = dict[str, Any]

HEADER = """\
// The wire: what the play server sends and reads, made by packaging/wire_types.py from the
// server's pydantic models (cradle.server.answers, .account_answers, .messages, .models) and from each game's
// Presentation (its TypedDicts of views, events, result lines and pieces). Do not edit it:
// `make wire-types` writes it again, and `make lint` fails while it is not current.
// The client's own types are in types.d.ts.
"""

# The bodies the client sends (the rest of cradle.server.models it does not build itself).
REQUESTS = ("CreateBody", "Hello")


# -- TypedDicts as JSON Schema (pydantic reads them only from typing_extensions before 3.12) ----


def _is_typeddict(value: object) -> bool:
    return isinstance(value, type) and typing.is_typeddict(value)


class TypedDictSchemas:
    """JSON Schemas of TypedDicts, in pydantic's form: each TypedDict a ``$defs`` entry named
    after its class, its keys ``properties``, its required keys ``required``. ``shared``: the
    contract's TypedDicts that games extend, by the name each is declared under; a TypedDict
    holding every key of one (as declared there) is declared as extending it (``bases``)."""

    def __init__(self, shared: Mapping[type, str] | None = None) -> None:
        self.defs: dict[str, Schema] = {}
        self.names = dict(shared or {})
        self.bases: dict[str, str] = {}

    def add(self, typed: type) -> str:
        name = self.names.get(typed, typed.__name__)
        if name in self.defs:
            return name
        self.defs[name] = {}  # named first: a TypedDict may refer to itself
        hints_of = get_type_hints(typed, include_extras=True)
        for shared in self.names:
            if shared is not typed and all(
                hints_of.get(key) == hint
                for key, hint in get_type_hints(shared, include_extras=True).items()
            ):
                self.bases[name] = self.add(shared)
        hints = get_type_hints(typed, include_extras=True)
        # Read from the annotations too: before 3.12 a NotRequired under `from __future__
        # import annotations` is counted among __required_keys__.
        listed = typed.__required_keys__  # type: ignore[attr-defined]
        required = [
            key
            for key, hint in hints.items()
            if get_origin(hint) is Required
            or (key in listed and get_origin(hint) is not NotRequired)
        ]
        schema: Schema = {
            "type": "object",
            "title": name,
            "properties": {key: self.of(hint) for key, hint in hints.items()},
            "required": required,
            "additionalProperties": False,
        }
        if typed.__doc__:
            schema["description"] = inspect.cleandoc(typed.__doc__)
        self.defs[name] = schema
        return name

    def of(self, hint: object) -> Schema:
        origin, args = get_origin(hint), get_args(hint)
        if origin in (NotRequired, Required, Annotated):
            return self.of(args[0])
        if hint is type(None) or hint is None:
            return {"type": "null"}
        if hint is str:
            return {"type": "string"}
        if hint is bool:
            return {"type": "boolean"}
        if hint is int:
            return {"type": "integer"}
        if hint is float:
            return {"type": "number"}
        if hint is object or hint is Any:
            return {}
        if _is_typeddict(hint):
            assert isinstance(hint, type)
            return {"$ref": f"#/$defs/{self.add(hint)}"}
        if origin in (Union, types.UnionType):
            return {"anyOf": [self.of(arg) for arg in args]}
        if origin is Literal:
            return {"enum": list(args)}
        if origin is list or (origin is tuple and len(args) == 2 and args[1] is ...):
            return {"type": "array", "items": self.of(args[0])}
        if origin is dict and args[0] is str:
            return {"type": "object", "additionalProperties": self.of(args[1])}
        raise TypeError(f"no JSON Schema for {hint!r}: teach packaging/wire_types.py it")


# -- JSON Schema as TypeScript ---------------------------------------------------------------


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _union(parts: Iterable[str]) -> str:
    seen: list[str] = []
    for part in parts:
        if part not in seen:
            seen.append(part)
    if "unknown" in seen:
        return "unknown"
    return " | ".join(seen) if seen else "never"


def ts_type(schema: Schema) -> str:
    """The TypeScript type of a schema (a property's, an item's)."""
    if "x-wire" in schema:
        return str(schema["x-wire"])
    if "$ref" in schema:
        return _ref_name(schema["$ref"])
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return _union(json.dumps(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union(ts_type(part) for part in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union(ts_type({**schema, "type": one}) for one in kind)
    if kind == "string":
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        items = ts_type(schema.get("items", {}))
        return f"({items})[]" if " " in items else f"{items}[]"
    if kind == "object" and "properties" not in schema:
        extra = schema.get("additionalProperties", True)
        value = "unknown" if extra is True else ts_type(extra)
        return f"{{ [key: string]: {value} }}"
    if kind == "object":
        return "{ " + " ".join(_members(schema)) + " }"
    return "unknown"


def _key(name: str) -> str:
    return name if name.isidentifier() else json.dumps(name)


def _members(schema: Schema) -> list[str]:
    required = set(schema.get("required", []))
    found = []
    for name, prop in schema.get("properties", {}).items():
        optional = "" if name in required else "?"
        found.append(f"{_key(name)}{optional}: {ts_type(prop)};")
    extra = schema.get("additionalProperties")
    if extra is True:  # extra="allow": a game adds its own keys
        found.append("[key: string]: unknown;")
    elif isinstance(extra, dict):
        found.append(f"[key: string]: {ts_type(extra)};")
    return found


def _comment(text: str, indent: str = "") -> list[str]:
    lines = inspect.cleandoc(text).replace("``", "`").splitlines()
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in lines), f"{indent} */"]


def _own(schema: Schema, base: Schema) -> tuple[Schema, list[str]]:
    """What ``schema`` adds to ``base`` (its members not declared the same there), and the
    base's members it declares otherwise."""
    props, inherited = schema.get("properties", {}), base.get("properties", {})
    required, base_required = set(schema.get("required", [])), set(base.get("required", []))
    own = {
        key: prop
        for key, prop in props.items()
        if inherited.get(key) != prop or (key in required) != (key in base_required)
    }
    own_schema: Schema = {**schema, "properties": own, "required": sorted(required & set(own))}
    if schema.get("additionalProperties") == base.get("additionalProperties"):
        own_schema.pop("additionalProperties", None)
    return own_schema, [key for key in own if key in inherited]


def declaration(name: str, schema: Schema, base: tuple[str, Schema] | None = None) -> list[str]:
    """``export type``: an object's members one a line (a type, not an interface: an object
    type converts to an open one, ``{[key: string]: unknown}``, an interface does not). A
    type that extends ``base`` (a model's base class, a game's TypedDict holding all of a
    contract's one) is the base with its own members (``Omit`` those it declares otherwise)."""
    out = _comment(schema["description"]) if schema.get("description") else []
    if schema.get("type") == "object" and "properties" in schema:
        head = ""
        if base is not None:
            schema, overridden = _own(schema, base[1])
            keys = " | ".join(json.dumps(key) for key in overridden)
            head = (f"Omit<{base[0]}, {keys}>" if overridden else base[0]) + " & "
        out.append(f"export type {name} = {head}{{")
        out += [f"  {member}" for member in _members(schema)]
        out.append("};")
    else:
        out.append(f"export type {name} = {ts_type(schema)};")
    return out


# -- the sources -----------------------------------------------------------------------------


def _models(module: object, names: Iterable[str] | None = None) -> list[type[BaseModel]]:
    found = [
        value
        for name, value in vars(module).items()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ == getattr(module, "__name__", None)
        and (names is None or name in names)
    ]
    return sorted(found, key=lambda model: model.__name__)


def _base_model(model: type[BaseModel], emitted: Iterable[type[BaseModel]]) -> str | None:
    """The nearest base class of ``model`` declared on the wire too, if it has one."""
    found = set(emitted)
    for base in model.__mro__[1:]:
        if base in found:
            return base.__name__
    return None


def collect() -> tuple[dict[str, Schema], dict[str, list[str]], dict[str, str]]:
    """Every definition by name, the unions each game's types make (View, Piece, ...), and
    the definitions that extend another (by its name)."""
    from cradle.core import contract
    from cradle.games import game_names, get_game
    from cradle.server import account_answers, answers, messages, models

    defs: dict[str, Schema] = {}
    bases: dict[str, str] = {}

    def put(name: str, schema: Schema) -> None:
        if name in defs and defs[name] != schema:
            raise SystemExit(f"two wire types are called {name}: rename one")
        defs[name] = schema

    empty = (answers.Answer, answers.OpenAnswer)  # no fields of their own
    emitted = [
        model
        for model in [
            *_models(answers),
            *_models(account_answers),
            *_models(messages),
            *_models(models, REQUESTS),
        ]
        if model not in empty
    ]
    for model in emitted:
        schema = model.model_json_schema(mode="serialization", ref_template="#/$defs/{model}")
        for name, found in schema.pop("$defs", {}).items():
            put(name, found)
        put(model.__name__, schema)
        base = _base_model(model, emitted)
        if base is not None:
            bases[model.__name__] = base

    # What every game's view and result line hold (``View`` names the union of the views).
    games = TypedDictSchemas({contract.View: "CommonView", contract.SeatResult: "SeatResult"})
    unions: dict[str, list[str]] = {"View": [], "Piece": [], "AnyEvent": [], "AnyResult": []}
    for game in game_names():
        shown = get_game(game).PRESENTATION
        for union, typed in (
            ("View", shown.view),
            ("AnyEvent", shown.event),
            ("AnyResult", shown.result),
            ("Piece", shown.piece),
        ):
            if typed is None:
                continue
            if not _is_typeddict(typed):
                raise SystemExit(f"{game}'s Presentation: {union} is not a TypedDict")
            assert isinstance(typed, type)
            unions[union].append(games.add(typed))
    for name, schema in games.defs.items():
        put(name, schema)
    bases.update(games.bases)
    return defs, unions, bases


def render(
    defs: Mapping[str, Schema], unions: Mapping[str, list[str]], bases: Mapping[str, str]
) -> str:
    out = [HEADER]
    for name in sorted(defs):
        base = bases.get(name)
        out += declaration(name, defs[name], None if base is None else (base, defs[base]))
        out.append("")
    descriptions = {
        "View": "A seat's view of any game (its `Presentation.view`): each game's own.",
        "Piece": "A piece a move names (a game's `Presentation.piece`), by what is drawn on it.",
        "AnyResult": "A line of any game's result (its `Presentation.result`).",
        "AnyEvent": "An event of any game (its `Presentation.event`).",
    }
    for union, names in unions.items():
        out += _comment(descriptions[union])
        value = " | ".join(names) if names else "{ [key: string]: unknown }"
        out.append(f"export type {union} = {value};")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the file is stale")
    parser.add_argument("--target", type=Path, default=TARGET, help="the file (wire.d.ts)")
    args = parser.parse_args(argv)
    target: Path = args.target
    text = render(*collect())
    if args.check:
        if not target.exists() or target.read_text() != text:
            print(
                f"{target} is not current: run `make wire-types` "
                "(python packaging/wire_types.py) and commit it",
                file=sys.stderr,
            )
            return 1
        return 0
    target.write_text(text)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
