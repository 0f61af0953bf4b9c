"""Names, chat lines and e-mail addresses made safe (cradle.server.text, docs/server.md): the
probe's look-alike, blank and invisible names, guests too; chat's separators, invisible and tag
characters and piles of marks, each refused with its reason; one e-mail address, never a list."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from fastapi.testclient import TestClient

from cradle.server.accounts import normal_name
from cradle.server.app import create_app
from cradle.server.limits import Limits
from cradle.server.text import chat_refusal, email_address, name_skeletons
from tests.helpers.server import GAMES, auth, create

PASSWORD = "correct horse battery"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("  Zoë  ", "Zoë"),
        ("Zoe\u0308", "Zoë"),  # composed
        ("李小龍", "李小龍"),
        ("a-b_c 9", "a-b_c 9"),
        ("ｆｕｌｌ ｗｉｄｔｈ", "full width"),  # NFKC: the letters they stand for
        ("𝐦𝐚𝐭𝐡 𝐛𝐨𝐥𝐝", "math bold"),
        ("हिन्दी", "हिन्दी"),
        ("عمر خیام", "عمر خیام"),
        ("ひらがな Kanji 漢字", "ひらがな Kanji 漢字"),  # Latin beside Japanese: one writing
    ],
)
def test_good_names_are_kept_as_written_under_nfkc(raw: str, shown: str) -> None:
    assert normal_name(raw) == shown


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("аdmin", "one script"),  # a Cyrillic а among Latin letters
        ("Ωmega", "one script"),
        ("\u3164\u3164\u3164", "hangul"),  # fillers: a blank name
        ("\u115f\u1160abc", "hangul"),
        ("a\u200bbc", "zero width space"),
        ("abc\ufeff", "zero width no-break space"),
        ("abc\U000e0041", "tag latin capital letter a"),
        ("x\u0301\u0302\u0303\u0304yz", "marks on one letter"),  # stacked accents
        ("a\u0301\u0301\u0301bc", "repeats a mark"),
        ("1२3ab", "digits in one script"),
        ("___", "a letter or a digit"),
        ("- -", "a letter or a digit"),
        ("two  spaces", "two spaces"),
        ("ab", "3 to 24"),
        ("Former Player", "deleted accounts"),
        ("Ｆｏｒｍｅｒ ｐｌａｙｅｒ", "deleted accounts"),
        ("<script>", "not U+003C"),
    ],
)
def test_look_alike_blank_and_invisible_names_are_refused_with_a_reason(
    raw: str, reason: str
) -> None:
    with pytest.raises(ValueError) as refused:
        normal_name(raw)
    assert reason.lower() in str(refused.value).lower()


def test_names_that_look_alike_share_a_skeleton() -> None:
    def alike(a: str, b: str) -> bool:
        return bool(name_skeletons(a) & name_skeletons(b))

    assert alike("admin", "ADMIN") and alike("admin", "adrnin") and alike("Ines", "lnes")
    assert alike("асе", "ace")  # whole-script Cyrillic against Latin
    assert alike("full", normal_name("ｆｕｌｌ"))
    assert not alike("Ada", "Bob") and not alike("admin", "admit")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("one\u2028two", "line or paragraph separator"),
        ("one\u2029two", "line or paragraph separator"),
        ("in\u200bvisible", "invisible character (U+200B"),
        ("\ufeffhello", "invisible character (U+FEFF"),
        ("flag \U0001f3f4\U000e0067\U000e0062\U000e007f", "invisible character (U+E0067"),
        ("word\u2060joiner", "invisible character (U+2060"),
        ("a\u00adb", "invisible character (U+00AD"),
        ("filler \u3164", "invisible character (U+3164"),
        ("z" + "\u0301" * 500, "more than 4 marks"),
        ("line\nbreak", "control character"),
        ("nul\x00", "control character"),
        ("turn \u202eevil", "control character (U+202E"),
    ],
)
def test_chat_refuses_separators_invisible_and_stacked_marks(line: str, reason: str) -> None:
    refusal = chat_refusal(line)
    assert refusal is not None and reason in str(refusal), refusal


@pytest.mark.parametrize(
    "line",
    [
        "hello there",
        "family \U0001f468\u200d\U0001f469\u200d\U0001f467",  # joined emoji keep their joiners
        "\u2764\ufe0f\u200d\U0001f525 love",
        "می\u200cخواهم",  # Persian's zero-width non-joiner between letters
        "ệ đẹp quá",
        "a\u0301\u0302",
        "日本語のチャット",
    ],
)
def test_chat_keeps_what_scripts_and_emoji_need(line: str) -> None:
    assert chat_refusal(line) is None


def test_one_email_address_parsed_by_a_real_parser() -> None:
    assert email_address("bob@EXAMPLE.org") == "bob@example.org"
    assert email_address("josé@exämple.org") == "josé@exämple.org"
    for bad in (
        "x,bob@example.org",
        "bob@example.org, x@example.org",
        "a;b@example.org",
        "bob@example.org;x@example.org",
        "a\x00b@example.org",
        "Bob <bob@example.org>",
        '"a b"@example.org',
        "bob@[192.0.2.1]",
        "bob@example.org\r\nBcc: x@example.org",
        "bob",
        "@example.org",
    ):
        with pytest.raises(ValueError):
            email_address(bad)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    limits = Limits(analyse_finished=False, password_kib=64)
    with TestClient(create_app(db_url, bot_delay=0, limits=limits)) as test_client:
        yield test_client


def test_look_alike_accounts_and_guests_are_refused(client: TestClient) -> None:
    made = client.post("/api/accounts", json={"name": "admin", "password": PASSWORD})
    assert made.status_code == 200, made.text
    app: Any = client.app
    for name, status, reason in [
        ("ADMIN", 409, "that name is taken"),
        ("adrnin", 409, "that name looks like one taken"),
        ("ａｄｍｉｎ", 409, "that name is taken"),  # NFKC: the same name
        ("аdmin", 400, "one script"),
        ("\u3164\u3164\u3164", 400, "hangul"),
    ]:
        other = TestClient(app)
        answer = other.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert answer.status_code == status and reason in answer.json()["error"], answer.text
    if "tigris" not in GAMES:
        return
    guest = TestClient(app)
    for name in ("Admin", "adrnin", "\u3164\u3164\u3164", "a\u200bbc"):
        answer = guest.post(
            "/api/games",
            json={"game": "tigris", "players": 2, "seats": ["human", "open"], "name": name},
        )
        assert answer.status_code == 400 and "name" in answer.json()["error"], answer.text
    game = create(guest, seats=["human", "open"], name="Guest one")
    joined = guest.post(f"/api/games/{game['id']}/join", json={"name": "adrnin"})
    assert joined.status_code == 400 and "an account's" in joined.json()["error"]
    joined = guest.post(f"/api/games/{game['id']}/join", json={"name": "Guest two"})
    assert joined.status_code == 200, joined.text
    # A lesson's table shows its learner's name as any table does: the same check.
    lesson = {"game": "tigris", "lesson": "revolt"}
    learner = guest.post("/api/lessons", json={**lesson, "name": "adrnin"})
    assert learner.status_code == 400 and "an account's" in learner.json()["error"]
    assert guest.post("/api/lessons", json={**lesson, "name": "Guest three"}).status_code == 200
    view = guest.get(f"/api/games/{game['id']}", headers=auth(joined.json()["token"])).json()
    assert view["table"]["names"] == ["Guest one", "Guest two"]


def test_the_email_field_takes_one_address(client: TestClient) -> None:
    made = client.post("/api/accounts", json={"name": "Mailer", "password": PASSWORD})
    csrf = {"X-CSRF-Token": made.json()["csrf"]}
    for bad in ("x,bob@example.org", "a;b@example.org", "a\u0000b@example.org", "a@b.org,c@d.org"):
        answer = client.patch("/api/me", json={"email": bad}, headers=csrf)
        assert answer.status_code == 400 and answer.json()["field"] == "email", answer.text
    good = client.patch("/api/me", json={"email": "Bob@Example.ORG"}, headers=csrf)
    assert good.status_code == 200 and good.json()["account"]["email"] == "Bob@example.org"
