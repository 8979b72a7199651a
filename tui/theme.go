package tui

import "charm.land/lipgloss/v2"

// theme holds every style, so colours and borders change in one place.
type theme struct {
	header, headerDim, demo        lipgloss.Style
	paneTitle, paneBorder          lipgloss.Style
	treeSel, treeSelBlur, treeDim  lipgloss.Style
	running, done, failed, closed  lipgloss.Style
	interrupted, pending           lipgloss.Style
	user, userBar, assistant       lipgloss.Style
	toolName, toolArgs, toolOut    lipgloss.Style
	toolErr, dim, warn, errStyle   lipgloss.Style
	card, cardTitle                lipgloss.Style
	modal, modalTitle, key, keyDim lipgloss.Style
	status, statusKey              lipgloss.Style
	planDone, planNow, planTodo    lipgloss.Style
	tableHead, tableSel            lipgloss.Style
	composerBorder, badge          lipgloss.Style
}

func newTheme() theme {
	accent := lipgloss.Color("#7D56F4")
	green := lipgloss.Color("#3FB950")
	red := lipgloss.Color("#F85149")
	yellow := lipgloss.Color("#D29922")
	blue := lipgloss.Color("#58A6FF")
	gray := lipgloss.Color("#8B949E")
	dark := lipgloss.Color("#30363D")
	return theme{
		header:         lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FFFFFF")).Background(accent).Padding(0, 1),
		headerDim:      lipgloss.NewStyle().Foreground(gray),
		demo:           lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#000000")).Background(yellow).Padding(0, 1),
		paneTitle:      lipgloss.NewStyle().Bold(true).Foreground(accent),
		paneBorder:     lipgloss.NewStyle().Foreground(dark),
		treeSel:        lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FFFFFF")).Background(lipgloss.Color("#3B2F6B")),
		treeSelBlur:    lipgloss.NewStyle().Bold(true),
		treeDim:        lipgloss.NewStyle().Foreground(gray),
		running:        lipgloss.NewStyle().Foreground(blue),
		pending:        lipgloss.NewStyle().Foreground(gray),
		done:           lipgloss.NewStyle().Foreground(green),
		failed:         lipgloss.NewStyle().Foreground(red),
		closed:         lipgloss.NewStyle().Foreground(gray).Faint(true),
		interrupted:    lipgloss.NewStyle().Foreground(yellow),
		user:           lipgloss.NewStyle().Bold(true),
		userBar:        lipgloss.NewStyle().Foreground(accent),
		assistant:      lipgloss.NewStyle(),
		toolName:       lipgloss.NewStyle().Bold(true).Foreground(blue),
		toolArgs:       lipgloss.NewStyle().Foreground(gray),
		toolOut:        lipgloss.NewStyle().Foreground(gray),
		toolErr:        lipgloss.NewStyle().Foreground(red),
		dim:            lipgloss.NewStyle().Foreground(gray),
		warn:           lipgloss.NewStyle().Foreground(yellow),
		errStyle:       lipgloss.NewStyle().Bold(true).Foreground(red),
		card:           lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(dark).Padding(0, 1),
		cardTitle:      lipgloss.NewStyle().Bold(true),
		modal:          lipgloss.NewStyle().Border(lipgloss.DoubleBorder()).BorderForeground(yellow).Padding(0, 1),
		modalTitle:     lipgloss.NewStyle().Bold(true).Foreground(yellow),
		key:            lipgloss.NewStyle().Bold(true).Foreground(accent),
		keyDim:         lipgloss.NewStyle().Foreground(gray),
		status:         lipgloss.NewStyle().Foreground(gray),
		statusKey:      lipgloss.NewStyle().Foreground(lipgloss.Color("#C9D1D9")),
		planDone:       lipgloss.NewStyle().Foreground(green),
		planNow:        lipgloss.NewStyle().Bold(true).Foreground(blue),
		planTodo:       lipgloss.NewStyle().Foreground(gray),
		tableHead:      lipgloss.NewStyle().Bold(true).Foreground(accent),
		tableSel:       lipgloss.NewStyle().Bold(true).Background(lipgloss.Color("#3B2F6B")),
		composerBorder: lipgloss.NewStyle().Foreground(dark),
		badge:          lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FFFFFF")).Background(red),
	}
}
