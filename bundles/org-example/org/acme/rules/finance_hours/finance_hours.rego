# METADATA
# title: Finance systems on working days only
# description: |
#   The finance MCP servers may only be used on working days, during working hours, in the
#   company's time zone (settings.working_hours), and never on a company holiday, when
#   nobody is around to notice a mistake.
package org.acme.rules.finance_hours

import data.org.acme.lib.reason
import data.org.acme.settings

# METADATA
# title: ORG_FINANCE_OUT_OF_HOURS
# description: "ACME policy: the {{.server}} system may only be used on working days between {{.from}}:00 and {{.to}}:00 ({{.tz}})."
# custom:
#   code: ORG_FINANCE_OUT_OF_HOURS
deny contains reason.render(rego.metadata.rule(), vars) if {
	server := input.facts.tool.mcp.server
	server in settings.finance_mcp_servers
	not working_time
	hours := settings.working_hours
	vars := {"server": server, "from": hours.from, "to": hours.to, "tz": hours.time_zone}
}

now := [time.now_ns(), settings.working_hours.time_zone]

working_time if {
	time.weekday(now) in settings.working_hours.days
	not holiday
	[hour, _, _] := time.clock(now)
	hour >= settings.working_hours.from
	hour < settings.working_hours.to
}

holiday if {
	[y, m, d] := time.date(now)
	sprintf("%04d-%02d-%02d", [y, m, d]) in settings.holidays
}
