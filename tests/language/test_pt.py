"""Portuguese, Brazilian and European: commands in everyday wording (você, tu, clitics, polite frames),
everything that must not be read as one, and claims in a model's reply."""

from __future__ import annotations

from support.readers import conversation_tests, language_tests

ADD, LIST, COMPLETE, DELETE, UPDATE = "add_task", "list_tasks", "complete_task", "delete_task", "update_task"

COMMANDS: list[tuple[str, list[str]]] = [
    # Deleting: BR and EP imperatives, clitics, polite frames, slang.
    ("apaga a tarefa da academia", [DELETE]),
    ("apaga-a, por favor", [DELETE]),
    ("exclui essa tarefa", [DELETE]),
    ("você pode apagar a tarefa do dentista?", [DELETE]),
    ("podes eliminar a tarefa do ginásio?", [DELETE]),
    ("remove a tarefa 'Read book'", [DELETE]),
    ("Por favor, remova a tarefa do mercado", [DELETE]),
    ("tira o dentista da minha lista", [DELETE]),
    ("quero que você apague a tarefa de yoga", [DELETE]),
    ("deleta a tarefa Netflix", [DELETE]),
    ("joga fora a tarefa da garagem", [DELETE]),
    ("nao quero mais a tarefa do gym, apaga", [DELETE]),
    ("será que você pode excluir a tarefa de natação?", [DELETE]),
    ("bora apagar a tarefa do gym", [DELETE]),
    ("elimine a tarefa da reunião, por favor", [DELETE]),
    ("me apaga essa tarefa do mercado", [DELETE]),
    ("vc consegue excluir o dentista?", [DELETE]),
    ("gostaria que você apagasse a tarefa do gym", [DELETE]),
    ("apaga a tarefa Call mom", [DELETE]),
    ("apaga isso já", [DELETE]),
    # Adding.
    ("adiciona leite", [ADD]),
    ("adicione pão à lista", [ADD]),
    ("coloca ovos na lista de compras", [ADD]),
    ("bota ligar pro encanador na lista", [ADD]),
    ("anota aí: pagar o aluguel", [ADD]),
    ("cria uma tarefa pra renovar o passaporte", [ADD]),
    ("me lembra de regar as plantas", [ADD]),
    ("lembra-me de ligar à minha mãe", [ADD]),
    ("não me deixa esquecer de pagar a conta", [ADD]),
    ("nova tarefa: comprar pão", [ADD]),
    ("poderia adicionar 'Buy milk', por favor?", [ADD]),
    ("gostaria de acrescentar uma tarefa: ir ao banco", [ADD]),
    ("põe café na lista", [ADD]),
    ("adiciona-o à lista, se faz favor", [ADD]),
    # Completing.
    ("marca a tarefa da academia como feita", [COMPLETE]),
    ("marca como concluída a tarefa do relatório", [COMPLETE]),
    ("conclui a tarefa dos impostos", [COMPLETE]),
    ("gym feito", [COMPLETE]),
    ("os impostos já estão concluídos", [COMPLETE]),
    ("o relatório tá feito", [COMPLETE]),
    ("termina a tarefa de limpar a casa", [COMPLETE]),
    ("risca o pão da lista", [COMPLETE]),  # complete_task first, delete_task also accepted
    ("dá baixa na tarefa do banco", [COMPLETE]),
    ("finalize a tarefa 'Read book'", [COMPLETE]),
    ("pode marcar gym como concluído?", [COMPLETE]),
    ("muda gym para concluída", [COMPLETE]),  # complete_task first, update_task also accepted
    ("marque a tarefa do mercado como feita", [COMPLETE]),
    # Updating: fields, dates, names, reopening.
    ("muda a data da academia para sexta", [UPDATE]),
    ("adia a reunião para segunda", [UPDATE]),
    ("renomeia 'gym' para 'natação'", [UPDATE]),
    ("tira a etiqueta 'urgente' dos impostos", [UPDATE]),
    ("adiciona uma nota à tarefa do ginásio", [UPDATE]),
    ("marca o relatório como não feito", [UPDATE]),
    ("altera a prioridade dos impostos para alta", [UPDATE]),
    ("passa a academia pra amanhã", [UPDATE]),
    ("reagenda o dentista para quinta", [UPDATE]),
    ("edita a tarefa 'Pay rent'", [UPDATE]),
    # Listing.
    ("mostra minhas tarefas", [LIST]),
    ("me mostra a lista", [LIST]),
    ("o que eu tenho pra fazer hoje?", [LIST]),
    ("quais são as minhas tarefas?", [LIST]),
    ("quantas tarefas faltam?", [LIST]),
    ("lista as tarefas de amanhã", [LIST]),
    ("tenho alguma tarefa pra amanhã?", [LIST]),
    ("qual é a minha próxima tarefa?", [LIST]),
    ("quero ver minhas tarefas", [LIST]),
    # Several actions, corrections, reports followed by a request.
    ("apaga a academia e marca o pão como feito", [DELETE, COMPLETE]),
    ("adiciona leite, ovos e pão", [ADD]),
    ("não apague gym, marque como concluída", [COMPLETE]),
    ("apaga gym. não, espera. apaga os impostos", [DELETE]),
    ("Apaguei gym ontem sem querer, pode adicionar de novo?", [ADD]),
    ("oi taskchat, adiciona ligar pra mãe", [ADD]),
    ("adiciona yoga e depois mostra minhas tarefas", [ADD, LIST]),
]

NOT_COMMANDS: list[tuple[str, str | None]] = [
    # Questions, yes/no and wh-, about the tasks' state or history.
    ("eu já terminei os impostos?", "state"),
    ("o que eu adicionei hoje?", "question"),
    ("quando foi que eu apaguei a tarefa do dentista?", "question"),
    ("já concluí a tarefa de lavar roupa?", "question"),
    ("excluí a tarefa?", "question"),  # "excluí" and the imperative "exclui" fold alike
    ("concluí o relatório?", "question"),
    ("a tarefa do relatório está concluída?", "state"),
    ("a academia foi removida?", "question"),
    ("você apagou a tarefa da academia?", "question"),
    ("por que você excluiu minha tarefa?", "question"),
    ("quem adicionou essa tarefa?", "question"),
    ("como faço para apagar uma tarefa?", "question"),
    ("posso excluir tarefas?", "question"),
    ("o que acontece se eu concluir uma tarefa?", "question"),
    ("dá pra apagar várias tarefas de uma vez?", "question"),
    ("tem como adicionar tarefas pelo celular?", "question"),
    ("me explica como marcar uma tarefa como feita", "question"),
    ("é possível remover tudo de uma vez?", "question"),
    # Advice-seeking.
    ("devo apagar as faturas antigas?", "advice"),
    ("você acha que eu deveria remover a academia?", "advice"),
    ("vale a pena criar uma tarefa pra isso?", "advice"),
    ("é melhor apagar ou concluir a tarefa?", "advice"),
    ("será que devo marcar como feita?", "advice"),
    ("tenho que terminar o relatório hoje?", "advice"),
    ("seria uma boa ideia excluir o dentista?", "advice"),
    # Reports and hypotheticals.
    ("quase apaguei a tarefa da academia sem querer", "report"),
    ("ia apagar a tarefa do gym", "report"),
    ("minha chefe pediu pra eu adicionar uma tarefa do relatório", "report"),
    ("meu marido quer que eu apague a tarefa da academia", "report"),
    ("eu excluí a tarefa ontem", "report"),
    ("excluí sem querer a tarefa do dentista", "report"),
    ("se eu apagar gym, ela some pra sempre?", None),
    ("tô pensando em apagar a academia", "report"),
    ("vou adicionar isso mais tarde", "report"),
    ("acabei de concluir o relatório", "report"),
    ("esqueci de marcar a academia como feita", "report"),
    ("eu ia apagar gym e adicionar yoga", "report"),
    ("queria apagar a tarefa mas não consegui", "report"),
    ("estava a pensar em eliminar a tarefa do ginásio", "report"),
    ("acho que já excluí essa tarefa", "report"),
    ("exclui essa tarefa ontem", "report"),
    ("queria que você apagasse a tarefa", "report"),
    # Negations and retractions.
    ("não apaga isso", "negated"),
    ("não exclua a tarefa da academia", "negated"),
    ("nao quero apagar 'Read book'", "negated"),
    ("não precisa marcar como feita", "negated"),
    ("nunca adicione tarefas no domingo", "negated"),
    ("espera, deixa essa", "negated"),
    ("deixa pra lá", "negated"),
    ("apaga gym. esquece", "negated"),
    ("adiciona leite. pensando melhor, não", "negated"),
    ("mudei de ideia", "negated"),
    ("não, não faz isso", "negated"),
    ("apaga-a. não, deixa estar", "negated"),
    # Talk.
    ("valeu, é só isso", None),
    ("oi", None),
    ("tô pronto com a roupa", None),
    ("liga pro Marcos sobre o relatório", None),
    ("a lista do mercado está enorme", None),
]

CLAIMS: list[tuple[str, str | None]] = [
    ("Apaguei a tarefa da academia.", DELETE),
    ("A tarefa 'Impostos' foi removida da sua lista.", DELETE),
    ("Pronto! Adicionei leite à sua lista.", ADD),
    ("Marquei 'Read book' como concluída.", COMPLETE),
    ("Feito, a tarefa foi excluída.", DELETE),
    ("Tarefa criada: ligar para a mãe.", ADD),
    ("A data da academia foi alterada para sexta.", UPDATE),
    ("Concluí a tarefa do relatório.", COMPLETE),
    ("Já removi o dentista.", DELETE),
    ("Eliminei a tarefa de yoga.", DELETE),
    ("Adicionei pão, ovos e leite.", ADD),
    ("As tarefas foram concluídas com sucesso.", COMPLETE),
    ("A reunião foi adiada para segunda.", UPDATE),
    ("Tudo certo, a tarefa do ginásio foi apagada.", DELETE),
    ("Sem problema, já apaguei a tarefa.", DELETE),
    ("Não se preocupe, já removi a tarefa.", DELETE),
]

NOT_CLAIMS = [
    "Quer que eu apague?",
    "Posso excluí-la se você quiser.",
    "Nenhuma tarefa foi apagada.",
    "Você concluiu os impostos na segunda.",
    "Aqui estão suas tarefas concluídas: Impostos.",
    "Você tem 2 tarefas: Impostos (concluída), Academia (pendente).",
    "Vou adicionar agora.",
    "Não apaguei nada.",
    "Depois que você adicionar, ela aparece aqui.",
    "A tarefa da academia continua lá; nada foi removido.",
    "Se quiser, posso marcar como feita.",
    "Ainda não foi concluída.",
    "Qual tarefa devo apagar?",
    "Tu adicionaste essa tarefa ontem.",
    "Essa tarefa já estava concluída.",
    "Você já tinha concluído essa tarefa.",
]

DENIALS = [
    "Desculpe, não consegui adicionar o leite.",
    "Não foi possível excluir a tarefa da academia.",
    "Infelizmente a tarefa não foi atualizada.",
    "Houve um erro: nenhuma tarefa chamada 'gym'.",
]
NOT_DENIALS = ["Adicionei o leite.", "Removida: academia.", "Você tem 3 tarefas.", "Sem problema, já apaguei a tarefa."]


test_commands, test_not_commands, test_claims, test_not_claims, test_denials, test_not_denials = language_tests(
    COMMANDS, NOT_COMMANDS, CLAIMS, NOT_CLAIMS, DENIALS, NOT_DENIALS
)

# Which language a message is in, small talk, undo, and references into the conversation.
DETECTS = [
    "apaga a tarefa da academia",
    "o que eu tenho pra fazer hoje?",
    "muito obrigado, é só isso",
    "sim, por favor",
    "adiciona leite na minha lista",
    "já terminei o relatório?",
    "oi, tudo bem?",
    "desfaz isso",
    "não, deixa pra lá",
    "me lembra de ligar pra minha mãe amanhã",
    "valeu, beleza",
]
SMALL_TALK = [
    "obrigado",
    "obrigada!",
    "muito obrigado",
    "valeu",
    "beleza",
    "tá bom",
    "perfeito, obrigado",
    "bom dia",
    "oi, tudo bem?",
    "como vai?",
    "tchau",
    "até amanhã",
]
UNDOS = [
    "desfaz isso",
    "desfaça a última alteração",
    "pode desfazer?",
    "volta atrás",
    "reverte isso",
    "restaura a tarefa",
    "desfazer",
]
REFERENCES = [
    ("isso", "this"),
    ("essa tarefa", "this"),
    ("a anterior", "previous"),
    ("a de antes", "previous"),
    ("a que eu acabei de adicionar", "just_added"),
    ("a nova", "just_added"),
    ("a primeira", "first"),
    ("o segundo", "second"),
    ("a terceira", "third"),
    ("número 2", "second"),
    ("a última", "this"),
    ("essa última tarefa", "this"),
]

test_detects, test_small_talk, test_undos, test_references = conversation_tests(
    DETECTS, "pt", SMALL_TALK, UNDOS, REFERENCES
)
