# builtin/help.awk - a command's option table, made at build time from what
# the command says of itself, builtin/help/NAME.txt:
#
#   awk -v command=NAME -f builtin/help.awk builtin/help/NAME.txt > NAME_options.h
#
# The text file has three parts, each opened by a line of its own:
#   [usage]     the usage lines and the words under them, as --help prints them
#   [options]   an option a line, its help on the tab-indented lines below it:
#                 --name           no value
#                 --name=VALUE     a value (getopt's required_argument)
#                 --name WORDS     no value; WORDS, shown in --help, are operands
#                 -x, --name...    also the letter -x
#   [epilogue]  what --help prints after the options (may be left out)
# Lines starting with '#' outside [usage] and [epilogue] are comments.
#
# Out comes the C of the table (struct command_option, builtin/commands.h), an
# enum OPT_NAME for each option without a letter, and NAME_help.

# "TEXT, as a C string opened but not closed: \ and " escaped.
function quoted(text,    out, c, i)
{
	out = "\""
	for (i = 1; i <= length(text); i++) {
		c = substr(text, i, 1)
		out = out (c == "\\" || c == "\"" ? "\\" : "") c
	}
	return out
}

function fail(message)
{
	printf "%s:%d: %s\n", FILENAME, FNR, message > "/dev/stderr"
	failed = 1
	exit 1
}

# The C string of a verbatim part: one quoted line a line, "\n" after each.
function text_lines(first, last, indent,    i, out)
{
	if (first > last)
		return "NULL"
	for (i = first; i <= last; i++)
		out = out (i > first ? "\n" indent : "") quoted(verbatim[i]) "\\n\""
	return out
}

BEGIN { part = "" }

/^\[(usage|options|epilogue)\]$/ {
	part = substr($0, 2, length($0) - 2)
	if (part == "usage")
		usage_first = count + 1
	if (part == "options")
		usage_last = count
	if (part == "epilogue")
		epilogue_first = count + 1
	next
}

part == "usage" || part == "epilogue" { verbatim[++count] = $0; next }

/^#/ || /^$/ { next }

part == "options" && /^\t/ {
	if (!options)
		fail("help before any option")
	help[options] = help[options] (help[options] == "" ? "" : "\n") substr($0, 2)
	next
}

part == "options" && /^(-[a-z], )?--[a-z][a-z-]*([= ].*)?$/ {
	options++
	head = $0
	letter[options] = ""
	if (head ~ /^-[a-z], /) {
		letter[options] = substr(head, 2, 1)
		head = substr(head, 5)
	}
	name[options] = substr(head, 3)
	sub(/[= ].*/, "", name[options])
	rest = substr(head, 3 + length(name[options]))
	has_arg[options] = substr(rest, 1, 1) == "=" ? "required_argument" : "no_argument"
	value[options] = rest == "" ? "" : substr(rest, 2)
	help[options] = ""
	next
}

{ fail(part == "" ? "a line before [usage]" : "not an option line (--name, --name=VALUE, -x, --name ...)") }

END {
	if (failed)
		exit 1
	if (!usage_first || !options)
		fail("no [usage] or no [options]")
	printf "/* Made by builtin/help.awk from builtin/help/%s.txt: edit that, not this. */\n", command
	enums = ""
	for (i = 1; i <= options; i++) {
		if (help[i] == "")
			fail("--" name[i] " has no help")
		if (letter[i] != "")
			continue
		constant = "OPT_" toupper(name[i])
		gsub(/-/, "_", constant)
		val[i] = constant
		enums = enums (enums == "" ? constant " = 256" : ", " constant)
	}
	if (enums != "")
		printf "enum { %s };\n", enums
	printf "static const struct command_option %s_options[] = {\n", command
	for (i = 1; i <= options; i++) {
		n = split(help[i], parts, "\n")
		lines = quoted(parts[1])
		for (p = 2; p <= n; p++)
			lines = lines "\\n\"\n\t  " quoted(parts[p])
		printf "\t{ \"%s\", %s, %s, %s,\n\t  %s\" },\n", name[i], has_arg[i],
		       letter[i] != "" ? "'" letter[i] "'" : val[i], value[i] == "" ? "NULL" : quoted(value[i]) "\"",
		       lines
	}
	printf "\t{ NULL, 0, 0, NULL, NULL },\n};\n"
	printf "const struct command_help %s_help = {\n", command
	printf "\t.command = \"%s\",\n", command
	printf "\t.usage = %s,\n", text_lines(usage_first, usage_last, "\t\t ")
	printf "\t.options = %s_options,\n", command
	printf "\t.epilogue = %s,\n", epilogue_first ? text_lines(epilogue_first, count, "\t\t    ") : "NULL"
	printf "};\n"
}
