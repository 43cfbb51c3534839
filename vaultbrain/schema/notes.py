"""The vault's notes as the schema commands read them: surveyed under a pack, with the inbox
note, the generated folders and the templates left out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vaultbrain.errors import UserError
from vaultbrain.packs.survey import NoteTyping, generated_folders, survey_vault

if TYPE_CHECKING:
    from vaultbrain.brain import Brain
    from vaultbrain.packs.resolved import ResolvedPack


def survey_notes(brain: Brain, pack: ResolvedPack, with_data: bool = True) -> list[NoteTyping]:
    skip = []
    try:
        skip.append(str(brain.settings.get("inbox_note")))
    except UserError:
        pass
    survey = survey_vault(
        brain.vault,
        pack,
        generated_folders(brain.settings),
        skip,
        with_data=with_data,
        template=brain.templates.holds,
    )
    return survey.notes
