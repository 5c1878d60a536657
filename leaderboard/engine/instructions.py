"""Combine a task's instruction with a model's declared way of taking one, and apply prompts."""

from __future__ import annotations

from typing import Any

from leaderboard.contract.model import Model


def format_query(model: Model, query: str, instruction: str | None) -> str:
    meta = model.metadata
    if instruction and meta.takes_instructions:
        query = meta.instruction_template.format(instruction=instruction, query=query)
    return meta.query_prompt + query


def format_document(model: Model, document: str) -> str:
    return model.metadata.document_prompt + document


def used_strings(model: Model, instruction: str | None) -> dict[str, Any]:
    """The exact strings a result records: the instruction as sent, the template, the prompts."""
    meta = model.metadata
    applied = bool(instruction and meta.takes_instructions)
    return {
        "instruction": instruction if applied else None,
        "template": meta.instruction_template if applied else None,
        "query_prompt": meta.query_prompt,
        "document_prompt": meta.document_prompt,
        "example_query": format_query(model, "<query>", instruction),
    }
