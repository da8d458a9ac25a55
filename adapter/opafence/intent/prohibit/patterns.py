"""The patterns a whole sentence is read against: read-only and dry-run requests, "nothing leaves
the machine", mentions, "ask me first", "X is forbidden", and the idioms that only look negated."""

from __future__ import annotations

import re

POSITIVE_IDIOMS = re.compile(
    r"\b(?:do ?n[o']?t|never)\s+(?:forget|hesitate|fail)\b|\bnot only\b|\bwhy (?:don'?t|not)\b|"
    r"\bno (?:problem|worries|rush|hurry|idea|doubt|matter)\b|\bdon'?t worry\b|\bnot sure\b|"
    r"\b(?:please )?do not reply to this (?:e-?mail|message|notification)\b|"
    r"\bno-?reply\b|\bdo not hesitate\b|\bcan'?t wait\b"
)
# "Remember that the billing replica is read-only": a fact to keep, not how the task may act.
DICTATED = re.compile(
    r"^\W*(?:please\s+)?(?:remember|note|keep\s+in\s+mind|do\s*n[o']?t\s+forget|never\s+forget|fyi|"
    r"for\s+the\s+record|save\s+(?:this|that)\s+to\s+(?:your\s+)?memory)\b[^.!?]*?\bthat\b"
)
# (Files as the object of a change ("don't modify any files", "without touching the file system"):
# a prohibition of file changes (LOCAL_WRITE, DELETE), read from the negated verb, not read-only.)
READ_ONLY = re.compile(
    r"(?:^|\b(?:be|stay|keep(?: it| this| everything)?|work|operate|remain|strictly|just|only|"
    r"purely|mode|in|go|this|task|please)[\s:]+)read[- ]?only\b|"
    # "this is read-only", "everything's read only"; not "the prod database is read-only for me",
    # which says what a thing is (a note to remember), not what the task may do
    r"\b(?:this|it|everything|that|all of (?:it|this)|the task|this task|the session|this session|"
    r"the job|this job|you)(?:'s|'re| is| are| should be| must be| will be)\s+read[- ]?only\b|"
    r"\bread[- ]?only(?:\s+(?:mode|access|task|please|session|for now|from now on|this time))?"
    r"\s*(?:[.!,;)]|$)|"
    r"\bonly (?:read|reading|look|looking)\b(?!\s+(?:the|a|an|at|it|this|that|my)\b[^.]*\b(?:and|then)\b)|"
    r"\blook,? but (?:do ?n[o']?t|never) touch\b|"
    r"\b(?:do ?n[o']?t|do not|never|without|not) (?:change|modify|touch|edit|alter|write|changing|modifying|"
    r"touching|editing|altering|writing) (?:anything|any ?thing|a thing|nothing)\b"
    r"(?!\s+(?:outside|beyond|except|other|but|else|besides|in|under|inside))|"
    r"\b(?:make|making) no (?:changes|modifications|edits)\b|\bno (?:changes|modifications|edits|writes)\b"
    r"(?!\s+(?:to|in|on|of)\b)|\bhands[- ]off\b|\bnur lesen\b|\blecture seule\b|"
    r"\bs[oó]lo lectura\b|\bsolo lettura\b|\bnichts (?:ändern|anfassen)\b"
)
# "Do a dry run of the migration", "dry-run only": the task is to look at what would change. Not
# a dry run that comes before the real thing ("renew it, doing a dry run first", "dry-run it
# before you apply"): that orders two steps and forbids neither.
DRY_RUN = re.compile(r"\bdry[- ]?run(?:s|ning)?\b")
DRY_RUN_FIRST = re.compile(
    r"\bdry[- ]?run(?:s|ning)?\b(?:\s+(?:it|them|this|that|everything|the\s+\w+|of\s+(?:it|the\s+\w+)))?"
    r"\s+(?:first|beforehand|before(?:\s+(?:you|we|i|the|doing|running|applying|actually))?\b)|"
    r"\b(?:after|following|start\s+with|starting\s+with|begin\s+with|beginning\s+with|once)\s+"
    r"(?:an?\s+|the\s+)?(?:quick\s+|successful\s+|clean\s+)?dry[- ]?run"
)
EGRESS = re.compile(
    r"\bnothing (?:\w+ ){0,2}(?:leaves?|leaving|left|goes out|gets out|exits?|escapes?)\b|"
    r"\b(?:do ?n[o']?t|do not|never) (?:let )?(?:anything|any data|data|it|nothing|any of (?:it|this))? ?"
    r"(?:leave|go out|get out|exit|escape)\b|"
    r"\bkeep (?:everything|it|all|all data|the data|data|things|this|all of (?:it|this))? ?"
    r"(?:local|on this (?:machine|computer|laptop|box)|offline|on-device|in-house|internal)\b|"
    r"\b(?:stay|work|remain|operate|run) offline\b|\b(?:offline|local)[- ]only\b|"
    r"\bno (?:network|internet|external|outbound|outgoing|egress|online)\b|"
    r"\b(?:do ?n[o']?t|do not|never) (?:send|upload|transmit|exfiltrate|share|post|leak) "
    r"(?:anything|any data|data|it|files?|this|any files?)? ?(?:out|outside|externally|off(?:[- ]site| this "
    r"machine)?|to the internet|online|anywhere|off the machine)\b|"
    r"\bair[- ]?gapped\b|\bnichts verlässt\b|\bnichts (?:\w+ )?nach au(?:ß|ss)en\b|\brien ne (?:doit )?"
    r"(?:sort|quitte)\w*|\bnada (?:debe )?sal(?:e|ir)\b|\bniente (?:deve )?(?:uscire|esce)\b"
)
# "don't @-mention anyone", "no @here", "without pinging the channel", "don't tag anybody": no call
# may mention people (facts.mentions), whatever it is. "Don't mention the outage" is about what
# to say, not a mention: without "@", the object must be people or a channel.
MENTION = re.compile(
    r"\b(?:do ?n[o']?t|do not|never|without|avoid|no need to|please don't)\s+(?:\w+\s+){0,2}?"
    r"(?:@-?\s?mention\w*|at-mention\w*|(?:mention|ping|tag|notify|alert|highlight)(?:s|ing|ed)?\s+"
    r"(?:anyone|anybody|everyone|everybody|people|any(?:one| users?| people| members?)|the (?:whole )?"
    r"(?:channel|team|group|room|members)|@?(?:here|channel|everyone|all)|them|him|her)\b)|"
    r"\bno\s+(?:@-?\s?mentions?|at-mentions?|mentions|pings|@(?:here|channel|everyone|all))\b|"
    r"(?:^|\s)@-?mention\w*\s+(?:no ?one|nobody)\b",
    re.IGNORECASE,
)
BARE_STOP = re.compile(
    r"^(?:(?:ok|okay|hey|please|no|wait|hermes)[,!.]?\s+)*(?:stop|halt|abort|freeze|hold on|hold it|cancel "
    r"(?:that|it|everything)|stop everything|stop it|stop now|stop right now|stop immediately|"
    r"stop what you(?:'re| are) doing|halt everything|wait|pause)(?:\s+(?:now|please|immediately|right now|"
    r"everything|it|all|that))*[\s.!]*$"
)
CONFIRM = re.compile(
    r"\b(?:ask|check with|confirm with|ping|consult) (?:me|us)(?: first)? (?:before|prior to) "
    r"(?:you )?(?P<verb>[\w-]+)|\b(?:get|wait for) (?:my|our) (?:ok|okay|approval|go-ahead|confirmation|"
    r"sign-off|permission) (?:before|prior to) (?:you )?(?P<verb2>[\w-]+)"
)
WAIT_BEFORE = re.compile(
    r"\bwait(?: for (?:me|my \w+|us))?(?: until [^.]{0,60})? before (?:you )?(?P<verb>[\w-]+)"
)
FORBIDDEN = re.compile(
    r"\b(?:is|are|'s|'re|stays?|remains?)?\s*(?:strictly |absolutely |completely )?(?:forbidden|prohibited|"
    r"banned|off[- ]limits|not allowed|not permitted|verboten|interdit|prohibido|vietato|out of bounds|"
    r"a no-go|no-go|not ok|not okay|untouchable)\b"
)
EXCEPT_RECIPIENTS = re.compile(r"\b(?:but not|except(?: for)?|excluding|other than|not)\s+$")


# Every rule below needs one of these words: a line without any cannot hold a prohibition.
CUE = re.compile(
    r"n[o'\u2019]?t\b|\b(?:never|no|nothing|none|nobody|without|avoid|refrain|stop|quit|cease|forbidden|"
    r"prohibited|banned|off[- ]?limits|allowed|permitted|read[- ]?only|only|offline|local|leave|leaves|left|"
    r"halt|abort|freeze|hold|cancel|wait|pause|ask|check|confirm|consult|get|dry|hands|air[- ]?gapped|"
    r"except|excluding|verboten|interdit|prohibido|vietato|untouchable|no-go|out|keep|stay|work|"
    r"nicht|nichts|kein\w*|nie|niemals|ne|pas|jamais|rien|aucun\w*|nunca|nada|ning\w+|jam\w+|non|mai|"
    r"niente|nessuno|nur|lecture|lectura|lettura|sal\w*|uscire|esce|raus|au\w+en)\b",
    re.IGNORECASE,
)
