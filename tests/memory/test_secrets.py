"""Credential recognition: each kind, no false alarms on ordinary notes, anchors change nothing."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from memory import secrets
from memory.secrets import DETECTORS, scanner
from memory.secrets.anchors import Anchors

SAMPLES = {
    "Slack webhook URL": "https://hooks.slack.com/services/T0001/B0002/abcdefXYZ",
    "Slack app token": "xapp-1-A0123-4567890123-abcdef",
    "OpenAI API key": "sk-proj-" + "a1" * 20,
    "AWS secret access key": "AWS_SECRET_ACCESS_KEY=" + "A" * 40,
    "Google API key": "AIza" + "b" * 35,
    "Stripe secret key": "sk_live_" + "c" * 24,
    "password in a URL": "postgres://app:hunter22@db.internal/prod",
    "npm token": "npm_" + "d" * 36,
}


def test_each_kind_is_named() -> None:
    """Every sample is found and reported by its kind."""
    for kind, text in SAMPLES.items():
        assert secrets.first(f"note: {text} (do not share)") == kind, kind


def test_ordinary_notes_are_not_secrets() -> None:
    """Notes about tokens, keys and URLs without credentials pass."""
    for text in (
        "rotate the Slack token every 90 days",
        "the AWS key lives in Vault under secret/ci",
        "see https://github.com/acme/api/pull/12 and https://example.com/a?b=c",
        "the xoxb prefix marks bot tokens",
        "sk-learn is a python package",
    ):
        assert secrets.first(text) is None, text


def test_redact_hides_the_value() -> None:
    """redact replaces each secret with its kind."""
    out = secrets.redact("token ghp_" + "x" * 36 + " here")
    assert out == "token [redacted GitHub token] here"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from([*SAMPLES.values(), "xox", "AKIA", "eyJ", " ", "://", "a@b", "secret"]),
        max_size=6,
    ),
    st.text(max_size=40),
)
def test_anchors_never_hide_a_match(parts: list[str], noise: str) -> None:
    """The anchor pre-check finds exactly what the patterns alone find."""
    text = noise.join(parts)
    unanchored = [replace(d, anchors=()) for d in DETECTORS]
    assert scanner._raw(text) == scanner._raw(text, unanchored)


def test_a_placeholder_word_inside_a_random_key_does_not_make_it_a_placeholder() -> None:
    """Corpus seed 2102993934 drew an IBM Cloud key holding `fAkE`; placeholder words count
    in one case only, so the key is refused while `FAKE_KEY`-style values still pass."""
    key = "IBM_CLOUD_API_KEY=_OByHaTIJISrO4Nf1zi2MoZejbx-tSH_P1yhcfAkEgzM"
    assert secrets.scan(key)
    assert not secrets.scan("IBM_CLOUD_API_KEY=FAKE_IBM_CLOUD_API_KEY_FOR_THE_DOCS_00000000")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["sk", "sk-", "sk-ant-", "ghp_", ".", "İ", "\n", "key"]), max_size=8),
    st.text(max_size=40),
)
def test_the_anchor_pass_finds_what_in_finds(parts: list[str], noise: str) -> None:
    """One Aho-Corasick pass finds exactly the literals `in` finds, overlapping ones included."""
    literals = ["sk", "sk-", "sk-ant-", "ant", "ghp_", ".", "\n", "key", "i̇"]
    lowered = noise.join(parts).lower()
    assert Anchors(literals).present(lowered) == {a for a in literals if a in lowered}


def test_ibm_cloudant_and_softlayer_keys_need_no_plugin_of_their_own() -> None:
    """detect-secrets' IBM, Cloudant and SoftLayer plugins are keyword plugins; they are not run
    (a quarter of a 6 MB scan), and hippo's key-word detector refuses what they did."""
    iam = "gaYEWiOnMn1v8RfsmipGw2f5EHRzexfJieKO9L4inUTF"  # made up for this test
    hmac = "31fe41ffb475fb4ce6527f66b5ec309363d41866fd9b0e28"
    hex64 = "11bfb8023191f63baf225c86b0220ccef669c1a51a43844629b76c865064306c"
    for text in (
        f'ibm_cloud_iam_api_key = "{iam}"',
        f"IBM-API-KEY: {iam}",
        f"cos_hmac_secret_access_key = {hmac}",
        f"cloudant_password = {hex64}",
        f"https://admin:{hex64}@acct.cloudant.com",
        f'softlayer_api_key = "{hex64}"',
    ):
        assert secrets.scan(text), text
