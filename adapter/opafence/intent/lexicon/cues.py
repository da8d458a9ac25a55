"""Cue words of clauses that are no request: questions, conditions, hypotheticals, negations,
"not yet", and the politeness and sequencing words skipped before the main verb."""

from __future__ import annotations

from opafence.intent.lexicon.verbs import phrases, words

# Words that start a subordinate or non-imperative clause: what follows them is not a request.
QUESTION_STARTS = frozenset(
    words(
        "what how why when where who which whose whom is are was were does did should shall what's "
        "how's where's who's why's isn't aren't wasn't doesn't didn't"
    )
)
CONDITIONAL_CUES = frozenset(words("if unless whether suppose supposing assuming provided providing"))
CONDITIONAL_PHRASES = ("in case", "as long as", "only if", "even if", "what if", "let's say", "say that")
HYPOTHETICAL_CUES = frozenset(
    words("hypothetically imagine pretend theoretically hypothetical suppose supposing würde würdest")
)
# Verbs after which "if" introduces an embedded question, not a condition ("check if it builds").
EMBEDDED_IF_VERBS = frozenset(
    words(
        "check see verify ask know tell determine find test confirm wonder figure look decide show "
        "investigate"
    )
)

# Negation cues (after contractions are split: "don't" -> "do not").
NEGATIONS = frozenset(
    words(
        "not never no avoid refrain stop quit cease without nobody nothing none neither nor nicht "
        "nichts kein keine keinen keiner nie niemals ne pas jamais rien aucun aucune nunca nada ningún "
        "ninguno ninguna jamás non mai niente nessuno"
    )
)
# Negation cues of other languages may follow the verb ("schick das nicht").
FOREIGN_NEGATIONS = frozenset(
    words(
        "nicht nichts kein keine keinen keiner nie niemals ne pas jamais rien aucun aucune nunca nada "
        "ningún ninguno ninguna jamás non mai niente nessuno"
    )
)
# "no" is Spanish for "not" when a verb follows it, English for "none" before a noun.
TEMPORARY_CUES = (
    "yet",
    "for now",
    "until",
    "till",
    "right now",
    "for the moment",
    "at this point",
    "before i",
)
FOREIGN_TEMPORARY = ("noch nicht", "pas encore", "todavía no", "aún no", "ancora")

# Politeness and sequencing words skipped before the main verb, longest first.
FILLERS: tuple[tuple[str, ...], ...] = tuple(
    sorted(
        (
            tuple(p.split())
            for p in phrases(
                "please|pls|plz|kindly|and|then|also|now|just|first|firstly|second|secondly|third|"
                "next|finally|lastly|afterwards|after that|after|ok|okay|so|go ahead and|go ahead|"
                "can you|could you|would you|will you|can u|could u|would you mind|"
                "would you be able to|would you please|could you please|can you please|"
                "will you please|can we|could we|i want you to|i need you to|i'd like you to|"
                "i would like you to|i want to|i'd like to|i would like to|i need to|we need to|"
                "we should|you should|you need to|you must|you have to|you'll need to|you can|"
                "you may|feel free to|make sure to|make sure you|be sure to|don't forget to|"
                "do not forget to|dont forget to|never forget to|remember to|try to|help me|quickly|"
                "actually|oh|hey|hi|hello|hermes|bitte|por favor|s'il te plaît|s'il vous plaît|stp|"
                "svp|per favore|yes|yeah|yep|sure|great|thanks|thank you|cool|perfect|good|alright|"
                "right|only|and then|but|let's|lets|let us|also please|and please|then please|again|"
                "instead|as well|too|don't hesitate to|do not hesitate to|"
                "it would be great if you could|it would be nice if you could|"
                "i'd appreciate it if you could|i'd appreciate if you could|und|dann|et|puis|y|luego|"
                "e|poi|aber|mais|pero|ma|danach|ensuite|después|you are allowed to|you're allowed to|"
                "you are free to|it's ok to|it is ok to|it's okay to|it is okay to|"
                "you have permission to|am ende|zum schluss|force|sudo"
            )
        ),
        key=len,
        reverse=True,
    )
)
