"""The laboratory: the experiment commands that decide what `cradle.ai` plays with, outside
the product (not in the wheel). ``python -m lab`` lists them, ``python -m lab NAME --help``
tells what one does. The dated trial notes are in ``lab/notebook``; each default's verdict
is in ``docs/ai-decisions.md``."""
