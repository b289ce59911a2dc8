import { unwrap } from '@cairn/client';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { fromPageObject, useLoad, usePaged } from '../../hooks.ts';
import { ErrorMessage, Table, text, when } from '../../ui.tsx';
import { PatientSection, patientPath, SECTION_SIZE, type SectionProps } from './parts.tsx';

interface ChatRow {
  id: string;
  sender: { clientType: string; titleName: string | null };
  message: string | null;
  createdAt: string;
  attachments: { id: string }[];
}
interface SmsRow {
  id: string;
  direction: 'IN' | 'OUT';
  message: string;
  status: string;
  date: string;
  senderName: string | null;
  from: string;
}
interface EmailRow {
  id: string;
  direction: 'IN' | 'OUT';
  subject: string | null;
  status: string;
  date: string;
  from: string;
  to: string;
}

/** The patient's messages: chat, SMS and emails, each a small list with its own error. */
export function Messages(props: SectionProps) {
  return (
    <PatientSection title="Messages" busy={false} error={undefined}>
      <Chat {...props} />
      <Sms {...props} />
      <Emails {...props} />
    </PatientSection>
  );
}

function Part({ title, busy, error, children }: { title: string; busy: boolean; error: unknown; children: ComponentChildren }) {
  return (
    <div class="message-part" data-part={title} aria-busy={busy ? 'true' : undefined}>
      <h3>{title}</h3>
      <ErrorMessage error={error} />
      {!error && children}
    </div>
  );
}

/** Chat pages by token: the API hands the next and previous pages' tokens. */
function Chat(props: SectionProps) {
  const { client } = props.session;
  const [token, setToken] = useState<string>();
  const chat = useLoad(
    () =>
      unwrap(
        client.GET('/{tenantName}/{instanceName}/patients/{patientId}/chat', {
          params: { path: patientPath(props), query: token ? { pageToken: token } : { size: SECTION_SIZE } },
        }),
      ),
    [client, props.patientId, token],
  );
  const rows = (chat.value?.content ?? []) as ChatRow[];
  const meta = chat.value?.meta;
  return (
    <Part title="Chat" busy={chat.loading} error={chat.error}>
      <Table
        label="Chat"
        list={{ rows, loading: chat.loading, error: chat.error }}
        head={['From', 'Message', 'Sent']}
        empty="No chat messages."
        row={(message) => (
          <tr key={message.id} data-chat={message.id}>
            <td>{message.sender.clientType === 'PATIENT' ? 'Patient' : text(message.sender.titleName)}</td>
            <td>
              {text(message.message)}
              {message.attachments.length > 0 && <small> ({message.attachments.length} attached)</small>}
            </td>
            <td>{when(message.createdAt)}</td>
          </tr>
        )}
      />
      {(meta?.prevPageToken || meta?.nextPageToken) && (
        <nav aria-label="Chat pages" class="pager">
          <button
            type="button"
            class="secondary"
            disabled={!meta.prevPageToken}
            onClick={() => setToken(meta.prevPageToken ?? undefined)}
          >
            Previous
          </button>
          <button
            type="button"
            class="secondary"
            disabled={!meta.nextPageToken}
            onClick={() => setToken(meta.nextPageToken ?? undefined)}
          >
            Next
          </button>
        </nav>
      )}
    </Part>
  );
}

function Sms(props: SectionProps) {
  const { client } = props.session;
  const list = usePaged(
    async (page) =>
      fromPageObject<SmsRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients/{patientId}/sms', {
            params: { path: patientPath(props), query: { page, size: SECTION_SIZE } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  return (
    <Part title="SMS" busy={list.loading} error={list.error}>
      <Table
        label="SMS"
        list={list}
        head={['Direction', 'Message', 'Status', 'Date']}
        empty="No SMS."
        row={(sms) => (
          <tr key={sms.id} data-sms={sms.id}>
            <td>{sms.direction === 'IN' ? `From ${sms.from}` : `Sent by ${text(sms.senderName)}`}</td>
            <td>{sms.message}</td>
            <td>{sms.status}</td>
            <td>{when(sms.date)}</td>
          </tr>
        )}
      />
    </Part>
  );
}

function Emails(props: SectionProps) {
  const { client } = props.session;
  const list = usePaged(
    async (page) =>
      fromPageObject<EmailRow>(
        await unwrap(
          client.GET('/{tenantName}/{instanceName}/patients/{patientId}/emails', {
            params: { path: patientPath(props), query: { page, size: SECTION_SIZE } },
          }),
        ),
      ),
    [client, props.patientId],
  );
  return (
    <Part title="Emails" busy={list.loading} error={list.error}>
      <Table
        label="Emails"
        list={list}
        head={['Direction', 'Subject', 'From', 'To', 'Status', 'Date']}
        empty="No emails."
        row={(email) => (
          <tr key={email.id} data-email={email.id}>
            <td>{email.direction === 'IN' ? 'Received' : 'Sent'}</td>
            <td>{text(email.subject)}</td>
            <td>{email.from}</td>
            <td>{email.to}</td>
            <td>{email.status}</td>
            <td>{when(email.date)}</td>
          </tr>
        )}
      />
    </Part>
  );
}
