"""Every ``paracomp`` command and option, read from its argparse parser."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass

from paracomp.reference.pages import cell


@dataclass(frozen=True)
class Option:
    """One argument of a command: its flags (or a positional's name) and help."""

    names: str
    help: str
    required: bool


@dataclass(frozen=True)
class Command:
    """One command: ``paracomp`` itself, a stage's command or a paper's subcommand."""

    path: str
    help: str
    usage: str
    options: tuple[Option, ...]


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    """``parser`` and every subcommand below it, depth first in the order they were added."""
    return list(_walk(parser, parser.prog, parser.description or ""))


def undocumented(found: list[Command]) -> list[str]:
    """The commands and options without a help text, as ``paracomp train --device``."""
    missing = [command.path for command in found if not command.help.strip()]
    return missing + [
        f"{command.path} {option.names.split(', ')[0]}"
        for command in found
        for option in command.options
        if not option.help.strip()
    ]


def _walk(parser: argparse.ArgumentParser, path: str, text: str) -> Iterator[Command]:
    options, children = [], []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            children = [(name, sub, helps.get(name, "")) for name, sub in action.choices.items()]
            continue
        options.append(Option(_names(action), _help(parser, action), _required(action)))
    usage = " ".join(parser.format_usage().split())
    text = " ".join(f"{text} {parser.epilog or ''}".split())
    yield Command(path, text, usage.removeprefix("usage: "), tuple(options))
    for name, sub, helped in children:
        yield from _walk(sub, f"{path} {name}", helped or sub.description or "")


def _names(action: argparse.Action) -> str:
    if action.option_strings:
        return ", ".join(action.option_strings)
    return str(action.metavar or action.dest)


def _required(action: argparse.Action) -> bool:
    return bool(action.required) if action.option_strings else action.nargs not in ("?", "*")


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help as ``--help`` prints it (``%(default)s`` and the like expanded)."""
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    return " ".join(parser._get_formatter()._expand_help(action).split())


def markdown(found: list[Command]) -> str:
    """One section per command: its help, its usage and a table of its options."""
    out = []
    for command in found:
        depth = min(command.path.count(" ") + 2, 4)
        out += [f"{'#' * depth} `{command.path}`", "", cell(command.help), ""]
        out += ["```text", command.usage, "```", ""]
        if command.options:
            out += ["| argument | required | what |", "|---|---|---|"]
            out += [
                f"| {cell(f'`{option.names}`')} | {'yes' if option.required else ''} | "
                f"{cell(option.help)} |"
                for option in command.options
            ]
            out.append("")
    return "\n".join(out)
