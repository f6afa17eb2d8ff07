/*
 * commands.h - the commands the front door (ptscope.c) dispatches to.
 * Each lives in the folder of its concern, one file each.
 * A command returns the process exit status: 0 success, 1 bad input or
 * usage, 2 internal failure.
 */
#ifndef PTSCOPE_COMMANDS_H
#define PTSCOPE_COMMANDS_H

int cmd_capture(int argc, char **argv);   /* inputs/cmd_capture.c */
int cmd_info(int argc, char **argv);      /* inputs/cmd_info.c */
int cmd_report(int argc, char **argv);    /* outputs/cmd_report.c */
int cmd_profiles(int argc, char **argv);  /* outputs/cmd_profiles.c */
int cmd_callgraph(int argc, char **argv); /* outputs/cmd_callgraph.c */

#endif
