"""User-facing words of the server in English and Russian, and a small two-format renderer.

Hover and completion documentation are built as blocks and rendered as Markdown or, for
clients that ask for plain text (Emacs eglot), as plain text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LABELS: dict[str, dict[str, str]] = {
    "component": {"en": "component", "ru": "компонент"},
    "artifact": {"en": "artifact", "ru": "артефакт"},
    "special": {"en": "special name", "ru": "особое имя"},
    "module": {"en": "module name", "ru": "имя модуля"},
    "unknown": {"en": "unknown name", "ru": "неизвестное имя"},
    "off_by_default": {"en": "off by default", "ru": "отключён по умолчанию"},
    "visible": {"en": "listed by TORCH_LOGS=help", "ru": "показывается TORCH_LOGS=help"},
    "hidden": {
        "en": "listed only by TORCH_LOGS=+help",
        "ru": "показывается только TORCH_LOGS=+help",
    },
    "level": {"en": "Level", "ru": "Уровень"},
    "levels_hint": {
        "en": "`+name` DEBUG, `name` INFO, `-name` ERROR",
        "ru": "`+имя` DEBUG, `имя` INFO, `-имя` ERROR",
    },
    "loggers": {"en": "Loggers", "ru": "Журналы"},
    "logger": {"en": "Logger", "ru": "Журнал"},
    "artifacts": {"en": "Artifacts", "ru": "Артефакты"},
    "modules": {"en": "Module names", "ru": "Имена модулей"},
    "prefix_ignored": {
        "en": "A `+`/`-` prefix is ignored on an artifact: naming it enables it.",
        "ru": "Префикс `+`/`-` у артефакта игнорируется: упоминание включает его.",
    },
    "off_note": {
        "en": "Not turned on by its component's level: name it explicitly.",
        "ru": "Не включается уровнем родительского компонента: укажите его явно.",
    },
    "module_note": {
        "en": "torch looks it up with importlib.util.find_spec and sets the level of that "
        "logger (on torch 2.11+ also of its submodules).",
        "ru": "torch ищет модуль через importlib.util.find_spec и задаёт уровень этого "
        "журнала (в torch 2.11+ и его подмодулей).",
    },
    "since": {"en": "In torch since {first}", "ru": "В torch начиная с {first}"},
    "until": {"en": ", until {last}", "ru": ", по {last} включительно"},
    "renamed": {"en": "; renamed `{new}` in {when}", "ru": "; переименован в `{new}` в {when}"},
    "not_packaged": {
        "en": "Read from your torch {version}; not in any packaged release (2.1-2.15).",
        "ru": "Прочитано из вашего torch {version}; нет ни в одном известном релизе (2.1-2.15).",
    },
    "module_found": {"en": "Found: {kind} `{origin}`", "ru": "Найден: {kind} `{origin}`"},
    "module_submodules": {
        "en": "torch {release} also sets its {count} submodules (2.11+).",
        "ru": "torch {release} задаёт уровень и его {count} подмодулей (2.11+).",
    },
    "torch_from": {"en": "Checked against {how}.", "ru": "Проверено по: {how}."},
    "effective": {"en": "Effective configuration", "ru": "Итоговая конфигурация"},
    "no_effect": {"en": "nothing enabled", "ru": "ничего не включено"},
    "code_docs": {"en": "{code} in the documentation", "ru": "{code} в документации"},
    "code_prefix": {
        "en": "silences every code that starts with it ({count})",
        "ru": "подавляет все коды, начинающиеся так ({count})",
    },
    "code": {"en": "Code", "ru": "Код"},
    "title": {"en": "Finding", "ru": "Находка"},
    "and_more": {"en": "... and {count} more.", "ru": "... и ещё {count}."},
    "not_a_code": {"en": "not a torch-logs code", "ru": "не код torch-logs"},
    "link_out": {"en": "Open the log file", "ru": "Открыть файл журнала"},
    "link_trace": {"en": "Open the trace directory", "ru": "Открыть каталог трассировки"},
    "release": {"en": "(checked against torch {release})", "ru": "(проверено по torch {release})"},
    "outcome_ok": {
        "en": "`import torch` accepts this value.",
        "ru": "`import torch` примет это значение.",
    },
    "outcome_invalid": {
        "en": "`import torch` raises ValueError: invalid TORCH_LOGS.",
        "ru": "`import torch` выбросит ValueError: недопустимое значение TORCH_LOGS.",
    },
    "outcome_help": {
        "en": "`import torch` raises and prints the TORCH_LOGS help.",
        "ru": "`import torch` выбросит исключение и выведет справку TORCH_LOGS.",
    },
    "outcome_module_not_found": {
        "en": "`import torch` raises ModuleNotFoundError/ImportError.",
        "ru": "`import torch` выбросит ModuleNotFoundError/ImportError.",
    },
    "outcome_crash": {
        "en": "`import torch` crashes with AttributeError (empty value).",
        "ru": "`import torch` завершится с AttributeError (пустое значение).",
    },
    "not_static": {
        "en": "The value is not checked: it is not static (expansion or substitution), or "
        "it reaches no process (a Dockerfile ARG before the first FROM).",
        "ru": "Значение не проверяется: оно вычисляется при запуске (подстановка) или не "
        "доходит ни до одного процесса (ARG в Dockerfile до первого FROM).",
    },
    "too_large": {
        "en": "{name} is {size} bytes, more than the {limit}-byte limit: TORCH_LOGS is not "
        "checked in it",
        "ru": "{name}: {size} байт, больше предела в {limit} байт: TORCH_LOGS в нём не проверяется",
    },
    # compile knobs (server/features/knob_ide.py; torch's own text is English)
    "knob_kind": {"en": "torch compile knob", "ru": "настройка компиляции torch"},
    "knob_default": {"en": "Default", "ru": "По умолчанию"},
    "knob_unset": {"en": "when unset", "ru": "если не задана"},
    "knob_none": {"en": "none given (unset)", "ru": "не задано"},
    "knob_values": {"en": "Values", "ru": "Значения"},
    "knob_feeds": {"en": "Sets `{entry}` ({file})", "ru": "Задаёт `{entry}` ({file})"},
    "knob_read_in": {"en": "Read in `{entry}` ({file})", "ru": "Читается в `{entry}` ({file})"},
    "knob_not_read": {
        "en": "Not read by torch {release} (read in {first}-{last}).",
        "ru": "torch {release} её не читает (читается в {first}-{last}).",
    },
    "knob_no_doc": {
        "en": "torch documents no comment beside it.",
        "ru": "torch не оставил рядом с ней комментария.",
    },
}


def label(key: str, locale: str, **fmt: str) -> str:
    """The label ``key`` in ``locale`` (``"en"``/``"ru"``), formatted with ``fmt``."""
    entry = LABELS[key]
    text = entry.get(locale) or entry["en"]
    return text.format(**fmt) if fmt else text


@dataclass
class Doc:
    """Blocks of a hover or documentation text: a title, paragraphs and tables."""

    title: str = ""
    blocks: list[str | list[tuple[str, str]]] = field(default_factory=list)

    def para(self, text: str) -> Doc:
        if text:
            self.blocks.append(text)
        return self

    def table(self, rows: list[tuple[str, str]]) -> Doc:
        if rows:
            self.blocks.append(rows)
        return self

    def markdown(self) -> str:
        """Markdown: the title in bold, tables as GitHub tables."""
        parts = [self.title] if self.title else []
        for block in self.blocks:
            if isinstance(block, str):
                parts.append(block)
            else:
                head, *body = block
                lines = [f"| {head[0]} | {head[1]} |", "| --- | --- |"]
                lines += [f"| `{a}` | {b} |" for a, b in body]
                parts.append("\n".join(lines))
        return "\n\n".join(parts)

    def plaintext(self) -> str:
        """Plain text: Markdown marks removed, tables as aligned columns."""
        parts = [_plain(self.title)] if self.title else []
        for block in self.blocks:
            if isinstance(block, str):
                parts.append(_plain(block))
            else:
                width = max(len(a) for a, _ in block)
                parts.append("\n".join(f"{a:<{width}}  {b}" for a, b in block))
        return "\n\n".join(parts)


def _plain(text: str) -> str:
    return text.replace("**", "").replace("`", "")
