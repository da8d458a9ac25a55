# METADATA
# title: Classification
# description: |
#   The risk classes of a call. Foundation version: a few tools known to only read; anything
#   else is UNKNOWN, which never allows. The classification issue replaces this with full tables.
package opafence.classify

read_tools := {"read_file", "search_files", "web_search", "web_extract", "session_search", "skills_list", "skill_view"}

# METADATA
# title: classes
# description: The set of risk classes of input.call.
classes contains "READ" if input.call.tool in read_tools

classes contains "UNKNOWN" if not input.call.tool in read_tools
