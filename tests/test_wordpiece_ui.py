"""wordpiece_ui as a package: its docstring says which of its modules import Streamlit."""


def test_the_glue_says_which_of_its_modules_import_streamlit():
    """wordpiece_ui/__init__.py names the modules that import Streamlit: exactly those that do."""
    import ast
    import re
    from pathlib import Path

    import wordpiece_ui

    importers = set()
    for path in Path(wordpiece_ui.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if any(name.split(".")[0] == "streamlit" for name in names):
                importers.add(path.name)
    said = wordpiece_ui.__doc__.split("Streamlit is imported by", 1)[1].split("\n\n", 1)[0]
    assert set(re.findall(r"`(\w+\.py)`", said)) == importers
