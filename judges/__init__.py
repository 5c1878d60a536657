"""Built-in violation judges (lexical-v1, llm:<model>), their judgment store and agreement tool."""
