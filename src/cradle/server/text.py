"""What people write that others read: names, chat lines and e-mail addresses, made safe.

A **name** (an account's, or a guest's at a seat) follows Unicode's identifier rules as ICU
implements them (UTS #39, through PyICU): NFKC first (fullwidth and mathematical letters become
plain ones), then every character must be in UTS #39's recommended identifier set (plus the
space, ``-`` and ``_`` between words), the words in one script (Latin may stand beside Chinese,
Japanese or Korean: ICU's *highly restrictive* level), no mark repeated on a letter, digits of
one system, and at least one letter or digit: no invisible, blank or look-alike-by-script name.
Two names are one when their **confusable skeletons** (UTS #39 section 4), taken up to case,
are equal: "admin", "ADMIN", "adrnin" and "аdmin" (a Cyrillic а) are one name.

A **chat line** may hold any visible text on one line: no control character, line or paragraph
separator (U+2028, U+2029), direction override, invisible character (zero-width spaces, the
byte-order mark, tag characters, fillers) or run of more than :data:`MAX_MARKS` combining marks;
each is refused with its reason, never cut out silently. The zero-width joiner and non-joiner
stay where a script or an emoji needs them (between two letters, or two symbols).

An **e-mail address** is parsed by ``email-validator`` (RFC 5321/5322 as mail servers take
them): one address, no display name, no list, no quoted or IP-literal parts.
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from typing import Any

from cradle.core.words import N_
from cradle.server.refusal import Refusal

NAME_MIN, NAME_MAX = 3, 24
NAME_SEPARATORS = " -_"
MAX_MARKS = 4  # combining marks in a row on one character (more: stacked "zalgo" text)
MAX_NAME_MARKS = 3
EMAIL_MAX = 254

# Characters no font draws that are not format characters (category Cf): the Hangul fillers and
# the combining grapheme joiner; and the noncharacters.
INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u034f\u2800")
JOINERS = frozenset("\u200c\u200d")  # zero-width non-joiner and joiner (see joined())
DIRECTION = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _char(character: str) -> str:
    """A character as a reason names it: U+200B (zero width space)."""
    name = unicodedata.name(character, "").lower()
    return f"U+{ord(character):04X}" + (f" ({name})" if name else "")


@functools.cache
def _spoof() -> tuple[Any, Any, Any]:
    """ICU's spoof checker for names (identifier set, restriction level, invisible marks, mixed
    digits), the same for single words (no separators), and the set of allowed characters."""
    import icu

    checks = icu.USpoofChecks
    whole = icu.SpoofChecker()
    allowed = icu.UnicodeSet()  # (a copy of a frozen set would stay frozen)
    allowed.addAll(whole.getRecommendedUnicodeSet())
    allowed.addAll(icu.UnicodeSet("[\\ \\-_]"))
    allowed.freeze()
    whole.setAllowedUnicodeSet(allowed)
    whole.setChecks(checks.CHAR_LIMIT | checks.INVISIBLE | checks.MIXED_NUMBERS)
    words = icu.SpoofChecker()
    words.setRestrictionLevel(icu.URestrictionLevel.HIGHLY_RESTRICTIVE)
    words.setChecks(checks.RESTRICTION_LEVEL)
    return whole, words, allowed


def _scripts(text: str) -> list[str]:
    import icu

    found: list[str] = []
    for character in text:
        script = icu.Script.getScript(character)
        name = str(script.getName())
        if script.getScriptCode() not in (icu.UScriptCode.COMMON, icu.UScriptCode.INHERITED):
            if name not in found:
                found.append(name)
    return found


def normal_name(raw: str) -> str:
    """The name as stored and shown (NFKC, trimmed), or ValueError saying what is wrong."""
    import icu

    name = unicodedata.normalize("NFKC", raw).strip()
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise Refusal(N_("a name has {min} to {max} characters"), min=NAME_MIN, max=NAME_MAX)
    whole, words, allowed = _spoof()
    marks = 0
    previous = ""
    for character in name:
        kind = unicodedata.category(character)
        if kind in ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd"):
            marks = 0
        elif kind[0] == "M" and unicodedata.category(previous or " ")[0] in "LM":
            marks += 1  # a mark on a letter (many scripts write vowels so)
            if marks > MAX_NAME_MARKS:
                raise Refusal(
                    N_("a name has at most {count} marks on one letter"), count=MAX_NAME_MARKS
                )
        elif character in NAME_SEPARATORS:
            marks = 0
            if character == " " and previous == " ":
                raise Refusal(N_("a name has no two spaces in a row"))
        else:
            raise Refusal(
                N_("a name has only letters, digits, spaces, '-' and '_' (not {character})"),
                character=_char(character),
            )
        if not allowed.contains(character):
            raise Refusal(
                N_("a name may not hold {character} (not used in names)"),
                character=_char(character),
            )
        previous = character
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        raise Refusal(N_("a name needs a letter or a digit"))
    flags = whole.check(name)
    if flags & icu.USpoofChecks.INVISIBLE:
        raise Refusal(N_("a name repeats a mark on one letter"))
    if flags & icu.USpoofChecks.MIXED_NUMBERS:
        raise Refusal(N_("a name writes its digits in one script"))
    if flags:
        raise Refusal(N_("a name may not hold these characters"))
    joined = "".join(c for c in name if c not in NAME_SEPARATORS)
    if words.check(joined):
        scripts = ", ".join(_scripts(joined))
        raise Refusal(
            N_(
                "a name is written in one script (Latin may stand beside Chinese, Japanese or "
                "Korean), not in {scripts}"
            ),
            scripts=scripts,
        )
    return name


def name_key(name: str) -> str:
    """What makes two names one for signing in: NFKC, case-folded, NFKC again."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded)


def name_skeletons(name: str) -> frozenset[str]:
    """What makes two names look alike: UTS #39's skeleton of the name as written ("Il" and
    "ll") and of its case-folded form ("admin", "ADMIN" and "adrnin"), each as a SHA-256. Two
    names sharing one are one name (``name_skeletons`` holds each account's)."""
    whole, _words, _allowed = _spoof()
    written = unicodedata.normalize("NFKC", name)
    found = set()
    for form in (written, name_key(written)):
        skeleton = str(whole.getSkeleton(0, form))
        found.add(hashlib.sha256(skeleton.encode()).hexdigest())
    return frozenset(found)


def joined(text: str, at: int) -> bool:
    """Whether the joiner at ``at`` stands where a script or an emoji needs it: between two
    letters (or marks on them), or between two symbols (an emoji sequence)."""
    if at == 0 or at == len(text) - 1:
        return False
    before = unicodedata.category(text[at - 1])
    after = unicodedata.category(text[at + 1])
    if before[0] in "LM" and after[0] == "L":
        return True
    return after == "So" and before in ("So", "Mn")


def chat_refusal(text: str) -> Refusal | None:
    """Why a chat line (already trimmed) may not be sent as it is (a catalogue message with
    its params; ``str()`` the English sentence); None when it may."""
    marks = 0
    for at, character in enumerate(text):
        kind = unicodedata.category(character)
        shown = _char(character)
        if kind in ("Cc", "Cs") or character in DIRECTION:
            return Refusal(
                N_("the line holds a control character ({character}): send plain text on one line"),
                character=shown,
            )
        if kind in ("Zl", "Zp"):
            return Refusal(
                N_("the line holds a line or paragraph separator ({character}): send one line"),
                character=shown,
            )
        if character in JOINERS and joined(text, at):
            continue
        if kind == "Cf" or character in INVISIBLE or _noncharacter(character):
            return Refusal(
                N_("the line holds an invisible character ({character}): send visible text"),
                character=shown,
            )
        if kind[0] == "M":
            marks += 1
            if marks > MAX_MARKS:
                return Refusal(
                    N_("the line stacks more than {most} marks on one character"), most=MAX_MARKS
                )
        else:
            marks = 0
    return None


def _noncharacter(character: str) -> bool:
    code = ord(character)
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def email_address(raw: str) -> str:
    """One e-mail address as mail is sent to it (the domain normalised), or ValueError saying
    what is wrong: a list, a display name, a separator, a NUL, a quoted or literal part."""
    from email_validator import EmailNotValidError, validate_email

    if len(raw) > EMAIL_MAX:
        raise ValueError(f"an address has at most {EMAIL_MAX} characters")
    try:
        found = validate_email(
            raw,
            check_deliverability=False,
            allow_smtputf8=True,
            allow_quoted_local=False,
            allow_domain_literal=False,
            allow_display_name=False,
            allow_empty_local=False,
        )
    except EmailNotValidError as exc:
        raise ValueError(str(exc)) from None
    return str(found.normalized)
