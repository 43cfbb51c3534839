"""A frontmatter that is not one readable block is reported, never given a second block;
a template is known by its own text wherever it lives."""

from __future__ import annotations

import pytest

from vaultbrain.vault.note import NoteFormatError, parse_note, update_frontmatter
from vaultbrain.vault.obsidian import is_template_text

BUTTON = "---\naliases: [Grace]\n--- %% button %%\nInvented the compiler.\n"


def test_a_closing_fence_with_text_after_it_is_a_problem_not_a_missing_block() -> None:
    parsed = parse_note(BUTTON)
    assert not parsed.has_frontmatter and parsed.error is None  # as Obsidian reads it
    assert parsed.fence_problem is not None and "--- %% button %%" in parsed.fence_problem
    with pytest.raises(NoteFormatError, match="closing --- has text after it"):
        update_frontmatter(BUTTON, {"id": "abc"})


def test_a_fence_that_never_closes_is_not_written_above_either() -> None:
    text = "---\nname: x\nno closing line\n"
    assert parse_note(text).fence_problem == "its frontmatter opens with --- and never closes"
    with pytest.raises(NoteFormatError):
        update_frontmatter(text, {"id": "abc"})


def test_readable_notes_have_no_fence_problem() -> None:
    for text in ("---\na: 1\n---\nbody\n", "no frontmatter\n", "---\n---\n", "text\n---\nx\n"):
        assert parse_note(text).fence_problem is None
    assert update_frontmatter("body\n", {"id": "abc"}) == "---\nid: abc\n---\nbody\n"


@pytest.mark.parametrize(
    "text",
    [
        "<%* const x = await tp.system.prompt('x') %>\n",
        "---\nname: <% tp.file.title %>\n---\n",
        "---\ncreated: {{date}}\n---\n",
        "# {{title}}\n",
        "at {{time:HH:mm}}\n",
        "<%tp.file.title%>\n",
    ],
)
def test_templates_by_content(text: str) -> None:
    assert is_template_text(text)


@pytest.mark.parametrize(
    "text",
    ["plain\n", "Jinja: {{ user.name }}\n", "a <b>tag</b> and 50% off\n", "{{author}}\n"],
)
def test_not_templates(text: str) -> None:
    assert not is_template_text(text)
